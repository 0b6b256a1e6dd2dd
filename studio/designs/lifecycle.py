"""Renaming, archiving, restoring and deleting projects and designs, each audited.

Archiving hides an object from lists and keeps it whole; only a team owner deletes for real,
and only by confirming with the object's exact name. A design that never got a revision (an
abandoned "From scratch") is a draft: an editor may discard it."""

from django.db import transaction
from django.utils import timezone

from studio.accounts.models import Role
from studio.accounts.selectors import user_has_role
from studio.core.audit import audit_record
from studio.core.errors import DomainError, unique_name
from studio.designs.models import Design, Project
from studio.designs.services import DesignNameTaken, ProjectNameTaken, design_revision_create


class NotAllowed(DomainError):
    """The actor's role does not allow this (the view answers 403)."""


class DeleteNotConfirmed(DomainError):
    field = "confirm"

    def __init__(self, name: str):
        super().__init__(f"Type the exact name “{name}” to confirm deleting it for good.")


class NotADraft(DomainError):
    def __init__(self):
        super().__init__("This design has saved revisions: archive it, or ask an owner to delete.")


def _changes(obj, values: dict) -> dict:
    """{field: [old, new]} of the values that differ (None means: leave as is)."""
    return {
        field: [getattr(obj, field), value]
        for field, value in values.items()
        if value is not None and getattr(obj, field) != value
    }


def _apply(obj, changes: dict) -> None:
    for field, (_, new) in changes.items():
        setattr(obj, field, new)
    obj.save(update_fields=list(changes))


@transaction.atomic
def project_update(*, actor, project: Project, name=None, description=None) -> Project:
    changes = _changes(project, {"name": name, "description": description})
    if changes:
        with unique_name(ProjectNameTaken(name)):
            _apply(project, changes)
        audit_record(
            actor=actor, team=project.team, action="project.update", target=project, data=changes
        )
    return project


@transaction.atomic
def design_update(*, actor, design: Design, name=None, description=None) -> Design:
    changes = _changes(design, {"name": name, "description": description})
    if changes:
        with unique_name(DesignNameTaken(name)):
            _apply(design, changes)
        audit_record(
            actor=actor,
            team=design.project.team,
            action="design.update",
            target=design,
            data=changes,
        )
    return design


def _team_of(obj):
    return obj.team if isinstance(obj, Project) else obj.project.team


def _label(obj) -> str:
    return "project" if isinstance(obj, Project) else "design"


@transaction.atomic
def archive(*, actor, obj: Project | Design):
    """Hide a project or design from lists; its revisions, runs and reports stay."""
    if obj.archived_at is None:
        obj.archived_at = timezone.now()
        obj.save(update_fields=["archived_at"])
        audit_record(actor=actor, team=_team_of(obj), action=f"{_label(obj)}.archive", target=obj)
    return obj


@transaction.atomic
def restore(*, actor, obj: Project | Design):
    if obj.archived_at is not None:
        obj.archived_at = None
        obj.save(update_fields=["archived_at"])
        audit_record(actor=actor, team=_team_of(obj), action=f"{_label(obj)}.restore", target=obj)
    return obj


@transaction.atomic
def delete_for_good(*, actor, obj: Project | Design, confirm: str) -> None:
    """An owner's explicit delete: the object and everything under it (revisions, runs,
    reports). The audit row stays (its project link becomes empty)."""
    team = _team_of(obj)
    if not user_has_role(actor, team.pk, Role.OWNER):
        raise NotAllowed("Only a team owner may delete; archive it instead.")
    if confirm != obj.name:
        raise DeleteNotConfirmed(obj.name)
    audit_record(
        actor=actor,
        team=team,
        action=f"{_label(obj)}.delete",
        target=obj,
        data={"name": obj.name, "id": obj.pk},
    )
    obj.delete()


@transaction.atomic
def design_draft_discard(*, actor, design: Design) -> None:
    """Discard a design that was never saved (no revision): nothing of value is lost."""
    locked = Design.objects.select_for_update().get(pk=design.pk)
    if locked.revisions.exists():
        raise NotADraft()
    audit_record(
        actor=actor,
        team=design.project.team,
        action="design.discard_draft",
        target=design,
        data={"name": design.name},
    )
    locked.delete()


@transaction.atomic
def design_save_from_editor(*, actor, design: Design, spec: dict, message: str):
    """The editor's save: a new revision, and the design renamed when its Name field changed
    (the design's name and its spec's name are the one name users see). A name another design
    of the project has refuses the whole save (DesignNameTaken)."""
    revision = design_revision_create(actor=actor, design=design, spec=spec, message=message)
    name = str(revision.spec.get("name") or "").strip()
    if name and name != design.name:
        design_update(actor=actor, design=design, name=name)
    return revision
