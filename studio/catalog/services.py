"""Writes of a team's catalog entries; the engine's catalog models are the validator."""

from django.db import transaction
from pydantic import ValidationError as PydanticValidationError

from models_engine.catalog import KINDS, CatalogError
from studio.catalog.models import TeamCatalogEntry
from studio.catalog.selectors import team_catalog
from studio.core.audit import audit_record


class CatalogEntryInvalid(ValueError):
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
    try:
        # Validate against the team's current catalog: same models, clashes and references.
        team_catalog(team.pk).with_entries(kind, [data])
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
