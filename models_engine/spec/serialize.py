"""Turning a DesignSpec back into plain data, and its canonical content hash."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .design import DesignSpec


def design_to_dict(spec: DesignSpec) -> dict[str, Any]:
    """JSON-ready dict of the full spec, defaults included, spec_version included."""
    return spec.model_dump(mode="json")


def canonical_json(spec: DesignSpec) -> str:
    """Compact JSON with sorted keys: the same spec always gives the same text."""
    return json.dumps(
        _normalise(design_to_dict(spec)),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )


def spec_hash(spec: DesignSpec) -> str:
    """sha256 (hex) of the canonical JSON; identical designs share a hash."""
    return hashlib.sha256(canonical_json(spec).encode("utf-8")).hexdigest()


def _normalise(value: Any) -> Any:
    # -0.0 passes ge=0 bounds but prints differently from 0.0; the hash must not see it.
    if isinstance(value, float) and value == 0.0:
        return 0.0
    if isinstance(value, dict):
        return {key: _normalise(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_normalise(item) for item in value]
    return value
