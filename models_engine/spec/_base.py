"""Shared building blocks of the spec models: strict base model, unit-carrying fields,
"literal or value" unions, and the collector for cross-field rule violations."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag
from pydantic_core import PydanticCustomError

# Catalog ids: lower-case slugs such as "h100-sxm-80gb" or "nvidia-qm9700".
CATALOG_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,79}$"
# Ids that the design itself defines (site ids) follow the same slug rule.
LOCAL_ID_PATTERN = CATALOG_ID_PATTERN

# Error type used for cross-field rules; errors.py expands its ctx["issues"].
CROSS_FIELD_ERROR = "cross_field"


class SpecModel(BaseModel):
    """Base of every spec model.

    strict: a JSON number must be a number and a boolean a boolean (no "12" -> 12, no
    true -> 1), so the stored revision is exactly what the user meant. Ints are accepted
    for float fields. frozen: a parsed spec is a value (revisions are immutable and hashed).
    """

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        frozen=True,
        allow_inf_nan=False,
        validate_default=False,
    )


def _whole_number(value: Any) -> Any:
    """Strict mode does not reach inside Literal: pydantic compares by equality, so 2.0 and
    true would pass as 2 and 1. A numeric choice takes a JSON integer only."""
    if isinstance(value, bool) or not isinstance(value, int):
        # literal_error: the spec's error text then lists the allowed values.
        raise PydanticCustomError("literal_error", "Input should be a whole number")
    return value


def whole_number_choice(*values: int) -> Any:
    """`Literal[values]` that accepts JSON integers only (not 2.0, not true)."""
    return Annotated[Literal[values], BeforeValidator(_whole_number)]


def spec_field(default: Any = ..., *, unit: str, description: str, **constraints: Any) -> Any:
    """A leaf field: its unit goes into the JSON Schema as "unit" next to the description."""
    return Field(default, description=description, json_schema_extra={"unit": unit}, **constraints)


def section_field(default: Any = ..., *, description: str, **constraints: Any) -> Any:
    """A field holding a nested model or a list of them (its leaves carry the units)."""
    return Field(default, description=description, **constraints)


def literal_or(literal: str, value_type: Any, value_label: str) -> Any:
    """`Literal[literal] | value_type`, dispatched on whether the input is a string.

    A plain union would report one error per member ("should be 'auto'" AND "should be a
    number"). Dispatching gives one error; the tags (stripped from error paths in errors.py)
    carry the text of the whole choice so the message can still say what is allowed.
    """
    literal_tag = f"<'{literal}' or {value_label}>"
    value_tag = f"<{value_label} or '{literal}'>"

    def pick(value: Any) -> str:
        return literal_tag if isinstance(value, str) else value_tag

    return Annotated[
        Union[  # noqa: UP007 - Annotated members need the Union[...] spelling
            Annotated[Literal[literal], Tag(literal_tag)],  # type: ignore[valid-type]
            Annotated[value_type, Tag(value_tag)],
        ],
        Discriminator(pick),
    ]


class RuleViolations:
    """Collects cross-field rule violations of one model, raised together as one error.

    Paths are relative to the model that runs the rule; errors.py prefixes the model's own
    location. Raising all at once lets the user fix every problem in one round.
    """

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def add(self, path: str, message: str, allowed: Any = None) -> None:
        self.items.append({"path": path, "message": message, "allowed": allowed})

    def raise_if_any(self) -> None:
        if self.items:
            summary = "; ".join(f"{item['path']}: {item['message']}" for item in self.items)
            raise PydanticCustomError(
                CROSS_FIELD_ERROR, "{summary}", {"summary": summary, "issues": self.items}
            )


def divisors(n: int, limit: int = 24) -> list[int]:
    """Divisors of n in ascending order (at most `limit`), for "allowed" hints."""
    found = [d for d in range(1, min(n, 10_000) + 1) if n % d == 0]
    if n > 10_000:
        found.append(n)
    return found[:limit]
