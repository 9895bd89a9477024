"""Judge backends by name, as metrics have their registry: a name maps to its typed settings
(judges/settings.py), which say how to build the judge and what it can do.

A package ships a backend with one entry point in the `ragmeter.judges` group, its name the
backend's and its value the settings class:

    [project.entry-points."ragmeter.judges"]
    mybackend = "my_package.settings:MyBackendConfig"

The class subclasses JudgeSettings, sets `backend: Literal["mybackend"]` and `factory =
"my_package.judge:MyJudge"` (a Judge subclass with `from_config(settings)`); then
`--judge mybackend:MODEL` and `judge: {backend: mybackend, ...}` work like the built-in ones.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, Any

from ragmeter.errors import ConfigError
from ragmeter.judges.settings import HFConfig, HTTPJudgeConfig, JudgeSettings, LlamaCppConfig, ScriptedConfig

if TYPE_CHECKING:
    from ragmeter.judges.base import Judge

#: the judge a run uses when none is named: the bundled Qwen, in-process
DEFAULT_JUDGE = "llamacpp"
ENTRY_POINTS = "ragmeter.judges"
_BUILT_IN: dict[str, type[JudgeSettings]] = {
    "llamacpp": LlamaCppConfig, "openai": HTTPJudgeConfig, "openai-compat": HTTPJudgeConfig,
    "hf": HFConfig, "scripted": ScriptedConfig}


@cache
def backends() -> dict[str, type[JudgeSettings]]:
    """Every backend name and its settings class: the built-in ones, then those installed
    packages register (a name already taken is refused: it would change what a spec means)."""
    from importlib.metadata import entry_points

    found = dict(_BUILT_IN)
    for entry in entry_points(group=ENTRY_POINTS):
        if entry.name in found:
            raise ConfigError(f"the judge backend '{entry.name}' registered by {entry.value} is already "
                              "ragmeter's or another package's: rename it")
        settings = entry.load()
        if not (isinstance(settings, type) and issubclass(settings, JudgeSettings)):
            raise ConfigError(f"the judge backend '{entry.name}' ({entry.value}) is not a JudgeSettings subclass")
        found[entry.name] = settings
    return found


def settings_class(backend: str, origin: str = "judge") -> type[JudgeSettings]:
    """The settings class of a backend name, or one ConfigError line naming the valid ones."""
    found = backends().get(backend)
    if found is None:
        raise ConfigError(f"{origin}: unknown judge backend '{backend}'; valid: {list(backends())}")
    return found


def build(settings: JudgeSettings, batch_poll_seconds: float | None = None) -> Judge:
    """The Judge the settings describe (with `batch_poll_seconds`, its batch-API form); its
    backend's module imported only now."""
    kind = type(settings)
    if batch_poll_seconds is not None:
        if not kind.batch_factory:
            raise ConfigError(f"--batch needs an OpenAI-compatible judge with a batch API; {settings.backend} has none")
        return _load(kind.batch_factory).from_config(settings, poll_seconds=batch_poll_seconds)
    if not kind.factory:
        raise ConfigError(f"judge backend '{settings.backend}' cannot be built from a spec "
                          "(the scripted judge is for tests: pass a ScriptedJudge object)")
    return _load(kind.factory).from_config(settings)


def _load(factory: str) -> Any:
    """The class a "module:Class" string names."""
    module, _, name = factory.partition(":")
    return getattr(importlib.import_module(module), name)


def is_serial(backend: str) -> bool:
    """Whether a backend answers one call at a time in this process (a local model)."""
    found = backends().get(backend)
    return found is not None and found.serial
