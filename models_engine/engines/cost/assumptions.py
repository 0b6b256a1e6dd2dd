"""Cost assumptions the catalog lacks (assumptions.yaml), each with dated sources.

`load_assumptions()` reads and validates the file once; `Assumptions.with_overrides()` applies a
team's own figures (negotiated staff rates, a licence they do not buy), which are then traced as
overrides rather than as the published source.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from models_engine.catalog.base import ID_PATTERN, Source
from models_engine.spec.errors import error


class Assumption(BaseModel):
    """One figure with its unit and at least one dated source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=ID_PATTERN)
    name: str = Field(min_length=1)
    unit: str = Field(min_length=1)
    value: float | str | dict[str, float] | dict[str, str] | dict[str, list[str]]
    notes: str | None = None
    sources: tuple[Source, ...] = Field(min_length=1)

    @property
    def date(self) -> str:
        """The most recent source date (the figure is as new as its newest source)."""
        return max(source.date for source in self.sources)

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


@dataclass(frozen=True)
class Assumptions:
    """All assumptions by id, plus the ids a team overrode."""

    entries: Mapping[str, Assumption]
    overridden: frozenset[str] = field(default_factory=frozenset)

    def __getitem__(self, assumption_id: str) -> Assumption:
        return self.entries[assumption_id]

    def value(self, assumption_id: str) -> Any:
        return self.entries[assumption_id].value

    def number(self, assumption_id: str, key: str | None = None) -> float:
        value = self.entries[assumption_id].value
        if key is not None:
            value = value[key]  # type: ignore[index]
        return float(value)  # type: ignore[arg-type]

    def with_overrides(self, overrides: Mapping[str, Any] | None) -> Assumptions:
        """A copy where each overridden id carries the team's value (validated like the file;
        unknown ids are errors; a dict-valued entry may be overridden key by key)."""
        if not overrides:
            return self
        unknown = sorted(set(overrides) - set(self.entries))
        if unknown:
            raise ValueError(
                f"unknown cost assumption id(s) {', '.join(unknown)}; "
                f"allowed: {', '.join(sorted(self.entries))}"
            )
        entries = dict(self.entries)
        for assumption_id, value in overrides.items():
            entry = entries[assumption_id]
            if isinstance(entry.value, dict) and isinstance(value, Mapping):
                value = {**entry.value, **value}  # a team may override single keys
            entries[assumption_id] = Assumption.model_validate(
                {**entry.model_dump(), "value": value}
            )
        return Assumptions(entries, self.overridden | frozenset(overrides))


def design_overrides(items) -> dict[str, Any]:
    """economics.cost_assumptions as with_overrides() takes them: {id: value} or, for a key of
    a table-valued assumption, {id: {key: value}}."""
    out: dict[str, Any] = {}
    for item in items:
        if item.key is None:
            out[item.id] = item.value
        else:
            out.setdefault(item.id, {})[item.key] = item.value
    return out


def assumption_errors(items, assumptions: Assumptions) -> list[dict]:
    """Errors naming economics.cost_assumptions.<index> for an unknown id, a key the entry does
    not have, or a value the entry cannot take; else []."""
    out = []
    for index, item in enumerate(items):
        path = f"economics.cost_assumptions.{index}"
        entry = assumptions.entries.get(item.id)
        if entry is None:
            out.append(
                error(
                    f"{path}.id", "unknown cost assumption", {"one_of": sorted(assumptions.entries)}
                )
            )
            continue
        table = entry.value if isinstance(entry.value, dict) else None
        if (table is None) != (item.key is None) or (table and item.key not in table):
            keys = sorted(table) if table else []
            message = f"{item.id} is a table: give one of its keys" if table else "not a table"
            out.append(error(f"{path}.key", message, {"one_of": keys} if keys else None))
            continue
        try:
            assumptions.with_overrides(design_overrides([item]))
        except ValueError as exc:
            out.append(error(f"{path}.value", f"not a valid value: {exc}", None))
    return out


@functools.lru_cache(maxsize=1)
def load_assumptions() -> Assumptions:
    """The built-in assumptions (validated, cached, read-only)."""
    text = (
        resources.files("models_engine.engines.cost")
        .joinpath("assumptions.yaml")
        .read_text(encoding="utf-8")
    )
    raw = yaml.safe_load(text) or []
    entries: dict[str, Assumption] = {}
    for item in raw:
        entry = Assumption.model_validate(item)
        if entry.id in entries:
            raise ValueError(f"duplicate cost assumption id {entry.id!r}")
        entries[entry.id] = entry
    return Assumptions(entries)
