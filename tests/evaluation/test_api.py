"""The Python API is a facade that lists what it offers, and a model's name is known without
opening its backend."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import typing
from pathlib import Path

import pytest

from checkbench import api, registry
from checkbench.errors import CheckbenchError, InputError
from checkbench.llm import backend_name, open_backend, parse_model_spec


def _api_modules() -> list[str]:
    """Every private api module, the evaluation flow and each registered protocol's `api`."""
    private = [f"checkbench.api.{m.name}" for m in pkgutil.iter_modules(api.__path__)]
    protocols = [f"checkbench.{p.name}.api" for p in registry.protocols()]
    return [*private, "checkbench.evaluation.flow"] + [
        m for m in protocols if importlib.util.find_spec(m) is not None
    ]


def _api_functions() -> dict[str, object]:
    """The public functions of every api module."""
    found = {}
    for module in _api_modules():
        loaded = importlib.import_module(module)
        for name, obj in vars(loaded).items():
            mine = inspect.isfunction(obj) and obj.__module__ == loaded.__name__
            if mine and not name.startswith("_"):
                found[name] = obj
    return found


def test_all_lists_every_api_function_and_only_what_exists() -> None:
    functions = _api_functions()
    assert "taxonomy_navigate" in functions and "meta_run" in functions
    assert "import_fbbench_judgments" in functions
    assert set(functions) <= set(api.__all__)
    assert len(api.__all__) == len(set(api.__all__))
    for name in api.__all__:
        assert hasattr(api, name), name


def _checkbench_types(hint: object) -> set[type]:
    """The checkbench classes a type hint mentions, at any depth (list[X], X | None, ...)."""
    if isinstance(hint, type) and hint.__module__.startswith("checkbench"):
        return {hint}
    return {t for arg in typing.get_args(hint) for t in _checkbench_types(arg)}


def test_all_lists_the_types_of_every_signature() -> None:
    """A caller can build every argument and name every result from `api` alone (a hint the
    api module imports for type checking only resolves by api's name for it)."""
    exported = {getattr(api, name) for name in api.__all__}
    for name in api.__all__:
        obj = getattr(api, name)
        if not inspect.isfunction(obj):
            continue
        names = {**vars(api), **obj.__globals__}
        for hint in typing.get_type_hints(obj, globalns=names).values():
            missing = _checkbench_types(hint) - exported
            assert not missing, f"{name} uses {missing}"


def test_backend_names_match_the_opened_backends(gguf: Path) -> None:
    specs = {
        "local": f"local:{gguf.stem}",
        f"local:{gguf}": f"local:{gguf.stem}",
        "openai:gpt-4o-mini": "openai:gpt-4o-mini",
        "openai:meta-llama/Llama-3.1-8B-Instruct": "openai:meta-llama/Llama-3.1-8B-Instruct",
    }
    for spec, name in specs.items():
        assert backend_name(spec) == name
        assert open_backend(spec).name == name


def test_a_name_needs_no_model_file(tmp_path: Path) -> None:
    missing = tmp_path / "qwen2.5-0.5b.gguf"
    assert backend_name(f"local:{missing}") == "local:qwen2.5-0.5b"
    assert parse_model_spec(f"local:{missing}").target == str(missing)
    with pytest.raises(CheckbenchError, match="GGUF model file not found"):
        open_backend(f"local:{missing}")


@pytest.mark.parametrize("spec", ["gpt-4o", "openai:", "ollama:llama3"])
def test_an_unknown_spec_is_an_input_error(spec: str) -> None:
    with pytest.raises(InputError, match=f"unknown model '{spec}'"):
        backend_name(spec)
