"""Base of every engine's typed result.

An engine returns one immutable result object; the stored JSON is that object's one
serialisation (`to_json`), read back with `from_json`. Downstream engines, the headline, the
charts and the exports read attributes, so a renamed quantity fails loudly (a missing
attribute or a validation error) instead of silently changing a number.

Parts that other engines consume are typed field by field. Chart-only detail (diagrams,
per-row tables) is kept as plain JSON data under a typed field name.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict

# Bump when a stored result's shape changes; the studio re-runs results of older versions.
# 4: software stacks, schedules, SHARP, checkpoints as a resource, energy boundaries, the
# logical network. 5: the physical plan.
RESULT_SCHEMA_VERSION = 5

JsonDict = dict[str, Any]


class ResultPart(BaseModel):
    """A typed piece of a result: immutable, no unknown keys."""

    model_config = ConfigDict(frozen=True, extra="forbid", ser_json_inf_nan="null")


class EngineResult(ResultPart):
    """The whole result of one engine."""

    def to_json(self) -> JsonDict:
        """The stored serialisation (plain JSON types)."""
        return self.model_dump(mode="json")

    @classmethod
    def from_json(cls, data: JsonDict) -> Self:
        return cls.model_validate(data)
