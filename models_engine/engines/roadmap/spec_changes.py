"""Apply an action's spec changes (dotted spec paths -> values) to a design document."""

from __future__ import annotations

import copy
from typing import Any


class SpecChangeError(ValueError):
    """A dotted path that does not lead anywhere in the document."""


def apply_spec_changes(doc: dict, changes: dict[str, Any]) -> dict:
    """A deep copy of `doc` with each dotted path set to its value.

    Missing objects on the way are created ({}); a numeric part indexes a list
    (`storage.tiers.1.capacity_tb`) and must exist. The result is NOT validated here: the
    roadmap validates each variant with `validate_design` like any other design.
    """
    out = copy.deepcopy(doc)
    for path, value in changes.items():
        parts = path.split(".")
        node: Any = out
        for position, part in enumerate(parts[:-1]):
            node = _child(node, part, path, create=not parts[position + 1].isdigit())
        last = parts[-1]
        if isinstance(node, list):
            index = _index(node, last, path)
            node[index] = copy.deepcopy(value)
        elif isinstance(node, dict):
            node[last] = copy.deepcopy(value)
        else:
            raise SpecChangeError(f"{path}: {last!r} is not inside an object or list")
    return out


def _index(node: list, part: str, path: str) -> int:
    if not part.isdigit() or int(part) >= len(node):
        raise SpecChangeError(f"{path}: no list item {part!r}")
    return int(part)


def _child(node: Any, part: str, path: str, *, create: bool) -> Any:
    if isinstance(node, list):
        return node[_index(node, part, path)]
    if not isinstance(node, dict):
        raise SpecChangeError(f"{path}: {part!r} is not inside an object or list")
    if part not in node or node[part] is None or isinstance(node[part], str):
        if not create:
            raise SpecChangeError(f"{path}: no list at {part!r}")
        # A missing section, or a literal such as "auto" replaced by an object's field.
        node[part] = {}
    return node[part]
