"""Dotted paths into the design spec: checked against the spec's types when the rules load,
read from the plain (JSON) form of a parsed design when they run.

Rules name fields such as ``security.mfa`` or ``fabric.storage_network.mode``. A path may end
at any field, including a list (``regions.wan_links``), but it may only descend through nested
spec models, never into a list: anything that needs to look inside lists is a derived fact.
"""

from __future__ import annotations

import typing
from typing import Any, Literal

from pydantic import BaseModel

from models_engine.spec import DesignSpec


class UnknownPathError(ValueError):
    """A rule names a spec path that does not exist; the message lists what does."""


def field_annotation(path: str) -> Any:
    """The type annotation of the spec field at `path` (raises UnknownPathError)."""
    model: type[BaseModel] = DesignSpec
    parts = path.split(".")
    for position, part in enumerate(parts):
        fields = model.model_fields
        if part not in fields:
            walked = ".".join(parts[:position]) or "(spec root)"
            raise UnknownPathError(
                f"unknown spec path '{path}': '{part}' is not a field of {walked}; "
                f"allowed: {', '.join(sorted(fields))}"
            )
        annotation = fields[part].annotation
        if position == len(parts) - 1:
            return annotation
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            raise UnknownPathError(
                f"unknown spec path '{path}': '{'.'.join(parts[: position + 1])}' is a value, "
                "not a section (paths cannot descend into lists; use a derived fact)"
            )
        model = annotation
    raise UnknownPathError(f"empty spec path '{path}'")  # pragma: no cover - split() never empty


def literal_choices(annotation: Any) -> tuple[Any, ...] | None:
    """The allowed values of a Literal-typed field, or None for any other type."""
    if typing.get_origin(annotation) is Literal:
        return typing.get_args(annotation)
    return None


def read_path(document: dict[str, Any], path: str) -> Any:
    """The value at `path` in the JSON form of a design (every field is present there)."""
    value: Any = document
    for part in path.split("."):
        value = value[part]
    return value
