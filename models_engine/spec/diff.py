"""Field-by-field differences between two spec documents (for revision and design diffs)."""

from typing import Any

_MISSING = object()


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        if not value and prefix:
            out[prefix] = {}
        for key, item in value.items():
            _flatten(item, f"{prefix}.{key}" if prefix else key, out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for index, item in enumerate(value):
            _flatten(item, f"{prefix}.{index}", out)
    else:
        out[prefix] = value


def flatten_spec(doc: dict) -> dict[str, Any]:
    """{dotted path: leaf value}; lists of objects are indexed, lists of scalars are leaves."""
    out: dict[str, Any] = {}
    _flatten(doc, "", out)
    return out


def spec_diff(old: dict, new: dict) -> list[dict]:
    """[{path, old, new}] for every leaf that differs, in path order; absent sides are None
    with `added` / `removed` flags."""
    before, after = flatten_spec(old), flatten_spec(new)
    changes = []
    for path in sorted(before.keys() | after.keys()):
        a, b = before.get(path, _MISSING), after.get(path, _MISSING)
        if a == b:
            continue
        changes.append(
            {
                "path": path,
                "old": None if a is _MISSING else a,
                "new": None if b is _MISSING else b,
                "added": a is _MISSING,
                "removed": b is _MISSING,
            }
        )
    return changes
