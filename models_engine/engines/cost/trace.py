"""Where every price comes from (`Trace`) and one priced line of the cost model (`CostLine`).

A finance reader must be able to follow any number to a catalog entry with its source and date,
an assumption in assumptions.yaml, or a user override. A line whose price nobody knows keeps
`total_usd = None` and is reported as unpriced, never as zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from models_engine.catalog import CatalogEntry

from .assumptions import Assumptions

# Kinds of trace. `included` = part of another line's price (zero on its own, by design).
TraceKind = Literal[
    "catalog",
    "assumption",
    "override",
    "design",
    "derived",
    "included",
    "engine",
    "unpriced",
]


@dataclass(frozen=True)
class Trace:
    """The origin of one price: kind, reference, source title and the date of the figure."""

    kind: TraceKind
    ref: str
    title: str | None = None
    date: str | None = None
    inputs: tuple[Trace, ...] = ()

    @property
    def price_source(self) -> str:
        if self.kind == "derived":
            return "derived: " + " x ".join(item.price_source for item in self.inputs)
        return f"{self.kind}:{self.ref}"

    @property
    def price_date(self) -> str | None:
        """Date of the figure; a derivation is as old as its oldest dated input."""
        if self.kind == "derived":
            dates = [item.price_date for item in self.inputs if item.price_date]
            return min(dates) if dates else None
        return self.date

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "price_source": self.price_source,
            "price_date": self.price_date,
            "source_title": self.title,
        }
        if self.inputs:
            out["derived_from"] = [item.as_dict() for item in self.inputs]
        return out


def catalog_trace(kind: str, entry: CatalogEntry, *, date: str | None = None) -> Trace:
    """A catalog price: the entry's first source title and its price date."""
    return Trace(
        kind="catalog",
        ref=f"{kind}/{entry.id}",
        title=entry.sources[0].title,
        date=date or entry.price_date,
    )


def assumption_trace(assumptions: Assumptions, assumption_id: str) -> Trace:
    if assumption_id in assumptions.overridden:
        return Trace(kind="override", ref=f"assumption_overrides.{assumption_id}")
    entry = assumptions[assumption_id]
    return Trace(
        kind="assumption",
        ref=assumption_id,
        title=entry.sources[0].title,
        date=entry.date,
    )


def override_trace(field_path: str) -> Trace:
    return Trace(kind="override", ref=field_path, title="user override in the design")


def derived(*inputs: Trace) -> Trace:
    return Trace(kind="derived", ref="", inputs=tuple(inputs))


UNPRICED = Trace(kind="unpriced", ref="no price in the catalog, assumptions or overrides")


@dataclass(frozen=True)
class CostLine:
    """One capex item (one-off, USD) or opex item (USD per year).

    `depreciation` names the asset class of a capex line ("hardware" or "facility"); `site` the
    site id of per-site lines; `gpu_content_usd` the part of `total_usd` that is GPU silicon
    (the lever the GPU-price sensitivity moves).
    """

    part: str
    item: str
    catalog_id: str | None
    quantity: float | None
    unit: str
    unit_price_usd: float | None
    total_usd: float | None
    trace: Trace
    depreciation: str | None = None
    site: str | None = None
    note: str | None = None
    gpu_content_usd: float = 0.0
    covered_by_allowance: bool = False
    one_time: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def priced(self) -> bool:
        return self.total_usd is not None

    def scaled(self, factor: float) -> CostLine:
        """The same line with its price multiplied (for sensitivity runs)."""
        if self.total_usd is None:
            return self
        unit = None if self.unit_price_usd is None else self.unit_price_usd * factor
        return replace(
            self,
            unit_price_usd=unit,
            total_usd=self.total_usd * factor,
            gpu_content_usd=self.gpu_content_usd * factor,
        )

    def as_dict(self, *, total_key: str = "total_usd") -> dict[str, Any]:
        out: dict[str, Any] = {
            "part": self.part,
            "item": self.item,
            "catalog_id": self.catalog_id,
            "quantity": self.quantity,
            "unit": self.unit,
            "unit_price_usd": self.unit_price_usd,
            total_key: self.total_usd,
            **self.trace.as_dict(),
        }
        if self.site is not None:
            out["site"] = self.site
        if self.note:
            out["note"] = self.note
        if self.covered_by_allowance:
            out["covered_by_allowance"] = True
        if self.one_time:
            out["one_time"] = True
        out.update(self.extra)
        return out


def total(lines: list[CostLine] | tuple[CostLine, ...]) -> float:
    """Sum of the priced lines (unpriced lines are reported separately, not as zero)."""
    return float(sum(line.total_usd for line in lines if line.total_usd is not None))


def storage_service_line(item: str, sku, usable_tb: float, **details) -> CostLine:
    """A storage tier bought as a service: per usable TB-month x 12 (durability included)."""
    yearly = sku.price_usd_per_tb_month * 12.0
    return CostLine(
        part="storage_services",
        item=item,
        catalog_id=sku.id,
        quantity=usable_tb,
        unit="TB usable (per year)",
        unit_price_usd=yearly,
        total_usd=yearly * usable_tb,
        trace=catalog_trace("storage", sku),
        **details,
    )
