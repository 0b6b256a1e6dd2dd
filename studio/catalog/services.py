"""Writes of a team's catalog entries; the engine's catalog models are the validator."""

import datetime as dt
import re

from django.db import transaction
from pydantic import ValidationError as PydanticValidationError

from models_engine import (
    KINDS,
    CatalogError,
    MeasurementError,
    entry_with_price,
    gpu_entry_with_measurement,
    load_catalog,
    priced_entry,
)
from studio.catalog.models import TeamCatalogEntry
from studio.catalog.selectors import team_catalog
from studio.core.audit import audit_record
from studio.core.errors import DomainError


class CatalogEntryInvalid(DomainError):
    """`errors` is {field path: [messages]}, ready for a form or an HTTP 400."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()))


def _pydantic_errors(exc: PydanticValidationError) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for item in exc.errors():
        path = ".".join(str(part) for part in item["loc"]) or "data"
        errors.setdefault(path, []).append(item["msg"])
    return errors


@transaction.atomic
def team_entry_create(*, actor, team, kind: str, data: dict) -> TeamCatalogEntry:
    if kind not in KINDS:
        raise CatalogEntryInvalid({"kind": [f"must be one of: {', '.join(KINDS)}"]})
    if not isinstance(data, dict):
        raise CatalogEntryInvalid({"data": ["must be a JSON object"]})
    entry_id = data.get("id")
    if TeamCatalogEntry.objects.filter(team=team, kind=kind, entry_id=entry_id).exists():
        raise CatalogEntryInvalid({"id": [f"your team already has a {kind} entry '{entry_id}'"]})
    try:
        # Validated by the same models as the built-in catalog; a built-in id is replaced by
        # the team's version (e.g. a negotiated price).
        team_catalog(team.pk).with_entries(kind, [data], override=True)
    except PydanticValidationError as exc:
        raise CatalogEntryInvalid(_pydantic_errors(exc)) from exc
    except CatalogError as exc:
        raise CatalogEntryInvalid({"id": [str(exc)]}) from exc
    entry = TeamCatalogEntry.objects.create(
        team=team, kind=kind, entry_id=data["id"], data=data, created_by=actor
    )
    audit_record(
        actor=actor,
        team=team,
        action="catalog.entry_create",
        target=entry,
        data={"kind": kind, "id": data["id"]},
    )
    return entry


@transaction.atomic
def team_entry_delete(*, actor, entry: TeamCatalogEntry) -> None:
    audit_record(
        actor=actor,
        team=entry.team,
        action="catalog.entry_delete",
        target=entry,
        data={"kind": entry.kind, "id": entry.entry_id},
    )
    entry.delete()


def team_price_override(
    *, actor, team, catalog_id: str, unit_price_usd: float, quote: str, quote_date: str
) -> TeamCatalogEntry:
    """The team's negotiated unit price for a built-in catalog item, with the quote as its
    source: stored as the team's version of that entry."""
    errors: dict[str, list[str]] = {}
    kind, entry = priced_entry(load_catalog(), catalog_id)
    if entry is None:
        errors["catalog_id"] = ["not a priced built-in catalog entry"]
    if not quote.strip():
        errors["quote"] = ["name the quote or contract the price comes from"]
    if not re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", quote_date or ""):
        errors["quote_date"] = ["a date: YYYY, YYYY-MM or YYYY-MM-DD"]
    if not isinstance(unit_price_usd, int | float) or unit_price_usd < 0:
        errors["unit_price_usd"] = ["a price of zero or more, in USD"]
    if errors:
        raise CatalogEntryInvalid(errors)
    source = {
        "title": f"Negotiated price: {quote.strip()}",
        "ref": f"team {team.slug}",
        "date": quote_date,
        "note": "stated",
    }
    return team_entry_create(
        actor=actor,
        team=team,
        kind=kind,
        data=entry_with_price(entry, unit_price_usd, source, quote_date),
    )


@transaction.atomic
def team_gpu_measurement(*, actor, team, gpu_id: str, calibration: dict) -> TeamCatalogEntry:
    """The team's version of GPU `gpu_id` (its own entry or the built-in one) carrying the
    kernel efficiency measured in `calibration` (the `python -m models_engine.calibrate`
    file): the team's designs on that GPU are then evaluated with it."""
    entry = team_catalog(team.pk).gpus.get(gpu_id)
    if entry is None:
        raise CatalogEntryInvalid({"gpu_id": ["not a GPU of the catalog or of your team"]})
    try:
        data = gpu_entry_with_measurement(
            entry, calibration, ref=f"team {team.slug} calibration file", date=str(dt.date.today())
        )
    except MeasurementError as exc:
        raise CatalogEntryInvalid({f"calibration.{exc.field}": [exc.expected]}) from exc
    TeamCatalogEntry.objects.filter(team=team, kind="gpus", entry_id=gpu_id).delete()
    return team_entry_create(actor=actor, team=team, kind="gpus", data=data)
