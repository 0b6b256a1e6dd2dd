"""The published JSON Schema of DesignSpec and a flat field list for documentation."""

from __future__ import annotations

from typing import Any

from .design import SPEC_VERSION, DesignSpec

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_BOUND_KEYS = {
    "minimum": "ge",
    "exclusiveMinimum": "gt",
    "maximum": "le",
    "exclusiveMaximum": "lt",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
    "pattern": "pattern",
    "enum": "one_of",
}


def design_json_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of DesignSpec: every leaf has description, unit, default
    (where there is one) and bounds."""
    schema = DesignSpec.model_json_schema(mode="validation")
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": f"Cluster Studio design spec, version {SPEC_VERSION}",
        **{k: v for k, v in schema.items() if k != "title"},
    }


def field_docs() -> list[dict[str, Any]]:
    """One row per field a user sets: path ("regions.sites[].gpu_share"), type, unit,
    default, bounds, description. Object-valued fields are expanded into their leaves;
    a field that is either a literal or an object ('auto' | {...}) gets a row and its
    object's leaves get rows too."""
    schema = design_json_schema()
    rows: list[dict[str, Any]] = []
    _walk_object(schema, "", schema.get("$defs", {}), rows)
    return rows


def _deref(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _alternatives(node: dict[str, Any]) -> list[dict[str, Any]]:
    return node.get("anyOf") or node.get("oneOf") or [node]


def _object_branch(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any] | None:
    for alternative in _alternatives(node):
        resolved = _deref(alternative, defs)
        if "properties" in resolved:
            return resolved
    return None


def _array_item_object(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any] | None:
    for alternative in _alternatives(node):
        if alternative.get("type") == "array" and "items" in alternative:
            item = _deref(alternative["items"], defs)
            if "properties" in item:
                return item
    return None


def _walk_object(
    node: dict[str, Any],
    prefix: str,
    defs: dict[str, Any],
    rows: list[dict[str, Any]],
    defaults: dict[str, Any] | None = None,
) -> None:
    """`defaults` is the parent field's default object: a section whose default differs
    from its class defaults (fabric.storage_network) documents the section's own values."""
    for name, raw in node.get("properties", {}).items():
        path = f"{prefix}{name}"
        prop = _deref(raw, defs)
        if defaults is not None and name in defaults:
            prop = {**prop, "default": defaults[name]}
        items = _array_item_object(prop, defs)
        if items is not None:
            _walk_object(items, f"{path}[].", defs, rows)
            continue
        branch = _object_branch(prop, defs)
        scalar_choices = [a for a in _alternatives(prop) if "properties" not in _deref(a, defs)]
        if branch is not None and any(a.get("type") != "null" for a in scalar_choices):
            rows.append(_row(path, prop, defs))  # e.g. 'auto' | {...}
        if branch is not None:
            own_default = prop.get("default")
            _walk_object(
                branch,
                f"{path}.",
                defs,
                rows,
                own_default if isinstance(own_default, dict) else None,
            )
            continue
        rows.append(_row(path, prop, defs))


def _row(path: str, prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    return {
        "path": path,
        "type": _type_name(prop, defs),
        "unit": prop.get("unit"),
        "default": prop.get("default"),
        "bounds": _bounds(prop),
        "description": prop.get("description"),
    }


def _type_name(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    names = []
    for alternative in _alternatives(prop):
        alternative = _deref(alternative, defs)
        if "const" in alternative:
            names.append(repr(alternative["const"]))
        elif "enum" in alternative:
            names.append("enum")
        elif "properties" in alternative:
            names.append("object")
        elif alternative.get("type") == "array":
            item = _deref(alternative.get("items", {}), defs)
            names.append(f"array of {item.get('type', 'any')}")
        else:
            names.append(str(alternative.get("type", "any")))
    return " | ".join(names)


def _bounds(prop: dict[str, Any]) -> dict[str, Any]:
    bounds: dict[str, Any] = {}
    for alternative in [prop, *_alternatives(prop)]:
        for key, name in _BOUND_KEYS.items():
            if key in alternative:
                bounds[name] = alternative[key]
        items = alternative.get("items")
        if isinstance(items, dict) and "pattern" in items:
            bounds["item_pattern"] = items["pattern"]
    return bounds
