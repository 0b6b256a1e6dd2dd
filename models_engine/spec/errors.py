"""Validation errors as plain dicts: {path, message, allowed}.

Paths are dotted with list indices ("regions.sites.1.gpu_share"); "" is the document root.
`allowed` is a dict saying what would be accepted ({"one_of": [...]}, {"ge": 1, "le": 8},
{"fields": [...]}, {"pattern": ...}, ...) or None when there is nothing more to say.
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, Tag, ValidationError

from ._base import CATALOG_ID_PATTERN, CROSS_FIELD_ERROR
from .network import TENANT_NAME_PATTERN
from .regions import JURISDICTION_PATTERN

ErrorDict = dict[str, Any]

_PATTERN_TEXT = {
    CATALOG_ID_PATTERN: "a lower-case id: letters a-z, digits, '.', '_' or '-' (max 80)",
    JURISDICTION_PATTERN: "2-3 upper-case letters, such as US, EU, UK or SG",
    TENANT_NAME_PATTERN: "a letter, then letters, digits, '-' or '_', 11 characters at most "
    "(the VRF is named Vrf-<name>, 15 characters at most)",
}
_TYPE_TEXT = {
    "int_type": ("must be a whole number", "integer"),
    "int_from_float": ("must be a whole number", "integer"),
    "float_type": ("must be a number", "number"),
    "bool_type": ("must be true or false", "boolean"),
    "string_type": ("must be a string", "string"),
    "list_type": ("must be a list", "array"),
    "model_type": ("must be an object", "object"),
    "dict_type": ("must be an object", "object"),
    "model_attributes_type": ("must be an object", "object"),
    "finite_number": ("must be a finite number", "number"),
}
_BOUND_TEXT = {"gt": "greater than", "ge": "at least", "lt": "less than", "le": "at most"}


class SpecValidationError(ValueError):
    """A design document that cannot be accepted; `.errors` lists every problem found."""

    def __init__(self, errors: list[ErrorDict]) -> None:
        self.errors = errors
        shown = "; ".join(f"{e['path'] or '(root)'}: {e['message']}" for e in errors[:5])
        more = f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""
        super().__init__(f"{len(errors)} error(s) in design spec: {shown}{more}")


def error(path: str, message: str, allowed: dict[str, Any] | None = None) -> ErrorDict:
    return {"path": path, "message": message, "allowed": allowed}


def errors_from_pydantic(exc: ValidationError, root: type[BaseModel]) -> list[ErrorDict]:
    """Translate pydantic's errors against `root` into spec error dicts."""
    found: list[ErrorDict] = []
    for raw in exc.errors(include_url=False):
        loc = tuple(raw["loc"])
        parts = [p for p in loc if not _is_tag(p)]
        choice = _tag_text(loc[-1]) if loc and _is_tag(loc[-1]) else None
        if raw["type"] == CROSS_FIELD_ERROR:
            for issue in raw["ctx"]["issues"]:
                path = _join([*parts, *([issue["path"]] if issue["path"] else [])])
                found.append(error(path, issue["message"], issue.get("allowed")))
            continue
        message, allowed = _describe(raw, loc, choice, root)
        found.append(error(_join(parts), message, allowed))
    return found


def _describe(
    raw: dict[str, Any], loc: tuple[Any, ...], choice: str | None, root: type[BaseModel]
) -> tuple[str, dict[str, Any] | None]:
    kind, ctx = raw["type"], raw.get("ctx") or {}
    annotation, metadata = _resolve(root, loc)
    if kind == "missing":
        return "required field is missing", None
    if kind == "extra_forbidden":
        parent, _ = _resolve(root, loc[:-1])
        fields = _model_fields(parent)
        listed = ", ".join(fields) if fields else "none"
        return f"unknown field '{loc[-1]}'; allowed fields: {listed}", {"fields": fields}
    if choice is not None and kind in ("literal_error", *_TYPE_TEXT):
        return f"must be {choice}", {"choice": choice}
    if kind == "literal_error":
        values = _literal_values(annotation)
        listed = ", ".join(repr(v) for v in values) if values else ctx.get("expected", "")
        return f"must be one of {listed}", {"one_of": values} if values else None
    if kind in _TYPE_TEXT:
        text, json_type = _TYPE_TEXT[kind]
        return text, {"type": json_type}
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        bounds = _bounds(metadata) or {k: ctx[k] for k in _BOUND_TEXT if k in ctx}
        text = " and ".join(f"{_BOUND_TEXT[k]} {v}" for k, v in bounds.items())
        suffix = f" ({choice})" if choice else ""
        return f"must be {text}{suffix}", bounds
    if kind == "string_pattern_mismatch":
        pattern = ctx.get("pattern", "")
        return f"must be {_PATTERN_TEXT.get(pattern, f'a string matching {pattern}')}", {
            "pattern": pattern
        }
    if kind in ("too_short", "too_long", "string_too_short", "string_too_long"):
        limits = {k: ctx[k] for k in ("min_length", "max_length") if k in ctx}
        limits.update(_length_limits(metadata))
        text = " and ".join(
            f"{'at least' if k == 'min_length' else 'at most'} {v}" for k, v in limits.items()
        )
        noun = "characters" if kind.startswith("string") else "items"
        return f"must have {text} {noun}", limits
    return raw["msg"][:1].lower() + raw["msg"][1:], None


def _join(parts: list[Any]) -> str:
    return ".".join(str(p) for p in parts)


def _is_tag(part: Any) -> bool:
    return isinstance(part, str) and part.startswith("<") and part.endswith(">")


def _tag_text(tag: str) -> str:
    return tag[1:-1]


# --- walking the model types along an error location -------------------------------------


def _resolve(root: type[BaseModel], loc: tuple[Any, ...]) -> tuple[Any, list[Any]]:
    """The type annotation at `loc` and its constraint metadata, or (None, [])."""
    node: Any = root
    metadata: list[Any] = []
    for part in loc:
        node, metadata = _step(node, part)
        if node is None:
            return None, []
    return node, metadata


def _step(node: Any, part: Any) -> tuple[Any, list[Any]]:
    node, _ = _strip_annotated(node)
    if _is_union(node):
        members = get_args(node)
        if _is_tag(part):
            for member in members:
                _inner, meta = _strip_annotated(member)
                if any(isinstance(m, Tag) and m.tag == part for m in meta):
                    return member, meta
            return None, []
        for member in members:
            if member is type(None):
                continue
            found = _step(member, part)
            if found[0] is not None:
                return found
        return None, []
    if isinstance(part, int):
        if get_origin(node) is list:
            item = get_args(node)[0]
            return item, _strip_annotated(item)[1]
        return None, []
    if isinstance(node, type) and issubclass(node, BaseModel):
        info = node.model_fields.get(part) if isinstance(part, str) else None
        if info is None:
            return None, []
        return info.annotation, list(info.metadata)
    return None, []


def _strip_annotated(node: Any) -> tuple[Any, list[Any]]:
    metadata: list[Any] = []
    while get_origin(node) is Annotated:
        metadata.extend(node.__metadata__)
        node = get_args(node)[0]
    return node, metadata


def _is_union(node: Any) -> bool:
    return get_origin(node) in (Union, types.UnionType)


def _model_fields(node: Any) -> list[str]:
    node, _ = _strip_annotated(node)
    if _is_union(node):
        for member in get_args(node):
            fields = _model_fields(member)
            if fields:
                return fields
        return []
    if isinstance(node, type) and issubclass(node, BaseModel):
        return list(node.model_fields)
    return []


def _literal_values(node: Any) -> list[Any]:
    node, _ = _strip_annotated(node)
    if _is_union(node):
        return [v for member in get_args(node) for v in _literal_values(member)]
    if get_origin(node) is Literal:
        return list(get_args(node))
    return []


def _flatten(metadata: list[Any]) -> list[Any]:
    """Constraint objects, including those held inside a nested Field(...) in Annotated."""
    flat: list[Any] = []
    for item in metadata:
        inner = getattr(item, "metadata", None)
        flat.extend(_flatten(inner) if isinstance(inner, list) else [item])
    return flat


def _bounds(metadata: list[Any]) -> dict[str, Any]:
    bounds: dict[str, Any] = {}
    for item in _flatten(metadata):
        for key in _BOUND_TEXT:
            value = getattr(item, key, None)
            if value is not None:
                bounds[key] = value
    return bounds


def _length_limits(metadata: list[Any]) -> dict[str, Any]:
    limits: dict[str, Any] = {}
    for item in _flatten(metadata):
        for key in ("min_length", "max_length"):
            value = getattr(item, key, None)
            if value is not None:
                limits[key] = value
    return limits
