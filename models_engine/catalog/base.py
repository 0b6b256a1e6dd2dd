"""Shared pieces of every catalog entry: the `Source` of a figure and the `CatalogEntry` base.

Every entry names where its figures come from (at least one `Source`) and every price carries
the date it was seen (`price_date`). Models are frozen and reject unknown fields.
"""

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# ISO date "2025-03-01", year-month "2025-03" or year "2025".
DATE_PATTERN = r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$"
# lowercase-kebab ids: "h100-sxm-80gb", "nvidia-qm9700".
ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"

FROZEN = ConfigDict(extra="forbid", frozen=True)


def coerce_date_text(value: object) -> object:
    """YAML turns 2025-03-01 into a date and 2025 into an int; keep them as text."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


class Source(BaseModel):
    """Where a figure comes from."""

    model_config = FROZEN

    title: str = Field(min_length=1, description="What the source is, in words.")
    ref: str = Field(
        min_length=1,
        description=(
            "Reference tag as given in the shared reference files (e.g. 'performance.md [S15]'),"
            " or a URL / 'owner/repo path' for a public source found elsewhere."
        ),
    )
    date: str = Field(
        pattern=DATE_PATTERN,
        description="Date of the figure: ISO date, year-month or year.",
    )
    note: Literal["stated", "derived", "secondary", "uncertain"] | None = Field(
        default=None,
        description=(
            "stated = printed in the source; derived = arithmetic from stated inputs;"
            " secondary = third-party summary; uncertain = not confirmed, no test oracle."
        ),
    )

    @field_validator("date", mode="before")
    @classmethod
    def _date_as_text(cls, value: object) -> object:
        return coerce_date_text(value)


class CatalogEntry(BaseModel):
    """Fields shared by every catalog entry."""

    model_config = FROZEN

    id: str = Field(pattern=ID_PATTERN, max_length=80, description="lowercase-kebab identifier")
    name: str = Field(min_length=1, description="Human-readable name.")
    sources: tuple[Source, ...] = Field(
        min_length=1, description="Where the figures come from (at least one)."
    )
    notes: str | None = Field(
        default=None,
        description="Caveats: uncertain figures, derivations, ranges behind a single value.",
    )
    price_date: str | None = Field(
        default=None,
        pattern=DATE_PATTERN,
        description="Date of every *_usd* figure of this entry (required when one is set).",
    )
    price_allowance: str | None = Field(
        default=None,
        min_length=1,
        description=(
            "Set when the entry's price is an allowance (no quote, list or street price found):"
            " how it is derived. Lines priced from it are marked 'allowance'."
        ),
    )

    @field_validator("price_date", mode="before")
    @classmethod
    def _price_date_as_text(cls, value: object) -> object:
        return coerce_date_text(value)

    @model_validator(mode="after")
    def _prices_are_dated(self) -> "CatalogEntry":
        priced = [name for name, value in self if "usd" in name and value is not None]
        if priced and self.price_date is None:
            raise ValueError(f"{', '.join(priced)} set without price_date (ISO date or YYYY-MM)")
        if self.price_allowance is not None and not priced:
            raise ValueError("price_allowance describes a price: set the *_usd figure too")
        return self

    def usd_fields(self) -> dict[str, float]:
        """Every price figure of this entry that is set, by field name."""
        return {name: value for name, value in self if "usd" in name and value is not None}
