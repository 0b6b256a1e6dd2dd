"""Reading optional results of other engines without depending on their exact shape.

The lead passes the fabric, storage, facility and performance results as plain dicts; their
layout may still move. `pick` tries dotted paths in order and returns the first number (or
value) found, so a renamed key degrades to this engine's own derivation instead of a crash."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def dig(data: Any, path: str) -> Any:
    """`data["a"]["b"]` for path "a.b"; None when any step is missing."""
    node = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def pick(data: Mapping | None, *paths: str) -> Any:
    """The first value (not None) found at one of `paths`."""
    if not data:
        return None
    for path in paths:
        value = dig(data, path)
        if value is not None:
            return value
    return None


def pick_number(data: Mapping | None, *paths: str) -> float | None:
    """Like `pick`, but only a positive finite number counts (a dict of tiers takes its minimum:
    the best tier)."""
    if not data:
        return None
    for path in paths:
        value = dig(data, path)
        number = _as_number(value)
        if number is not None:
            return number
    return None


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
        return number if number > 0 and number == number and number != float("inf") else None
    if isinstance(value, Mapping):
        numbers = [n for n in (_as_number(v) for v in value.values()) if n is not None]
        return min(numbers) if numbers else None
    return None
