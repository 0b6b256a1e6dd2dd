"""Every write to projects, designs and revisions, each with its audit row."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from models_engine import (
    SpecValidationError,
    design_to_dict,
    load_security_rules,
    spec_diff,
    spec_from_system,
    spec_hash,
    validate_design,
)
from studio.catalog.selectors import team_catalog, team_catalog_entries
from studio.core.audit import audit_record
from studio.core.errors import DomainError, NameTaken, unique_name
from studio.designs.examples import get_example
from studio.designs.importing import spec_from_upload
from studio.designs.models import AcceptedRisk, Design, DesignDraft, DesignRevision, Project
from studio.designs.spec_sheet import (
    SheetError,
    SheetInvalid,
    Variant,
    VariantMode,
    errors_at_cells,
    patch_cells,
    patched_spec,
    variant_rows,
)


class DesignSpecInvalid(ValidationError):
    """The spec failed the engine's validation; `errors` holds path + message per field."""

    def __init__(self, errors: list[dict]):
        self.errors = errors
        super().__init__("; ".join(f"{e['path']}: {e['message']}" for e in errors))


class ProjectNameTaken(NameTaken):
    def __init__(self, name: str = ""):
        super().__init__("This team already has a project with that name.")


class DesignNameTaken(NameTaken):
    def __init__(self, name: str = ""):
        super().__init__(f"This project already has a design named “{name}”.")


def validated_spec(spec: dict, *, team_id: int) -> tuple[dict, str]:
    """Normalise a spec through the engine's one validation entry point (schema, price
    overrides, catalog references against the team's catalog); the stored form is the
    canonical one."""
    try:
        design = validate_design(spec, team_catalog_entries(team_id))
    except SpecValidationError as exc:
        raise DesignSpecInvalid(exc.errors) from exc
    return design_to_dict(design.spec), spec_hash(design.spec)


@transaction.atomic
def project_create(*, actor, team, name: str, description: str = "") -> Project:
    with unique_name(ProjectNameTaken(name)):
        project = Project.objects.create(
            team=team, name=name, description=description, created_by=actor
        )
    audit_record(actor=actor, team=team, action="project.create", target=project)
    return project


@transaction.atomic
def design_create(*, actor, project: Project, name: str, spec: dict, message: str) -> Design:
    canonical, digest = validated_spec(spec, team_id=project.team_id)
    design = _design_insert(actor=actor, project=project, name=name)
    _revision_insert(actor=actor, design=design, spec=canonical, digest=digest, message=message)
    audit_record(actor=actor, team=project.team, action="design.create", target=design)
    return design


@transaction.atomic
def design_revision_create(*, actor, design: Design, spec: dict, message: str) -> DesignRevision:
    canonical, digest = validated_spec(spec, team_id=design.project.team_id)
    # Lock the design row so two editors never get the same revision number.
    Design.objects.select_for_update().get(pk=design.pk)
    latest = design.latest_revision
    if latest is not None and latest.spec_hash == digest:
        return latest  # nothing changed: no empty revision
    return _revision_insert(
        actor=actor, design=design, spec=canonical, digest=digest, message=message
    )


def design_create_from_example(*, actor, project: Project, name: str, slug: str) -> Design:
    example = get_example(slug)
    if example is None:
        raise DesignSpecInvalid([{"path": "", "message": f"no example {slug!r}"}])
    return design_create(
        actor=actor,
        project=project,
        name=name,
        spec=example.spec,
        message=f"Created from example {example.slug}",
    )


def design_create_from_system(
    *, actor, project: Project, name: str, system_id: str, systems: int
) -> Design:
    """A design of `systems` catalog systems (servers or racks) of the team's catalog."""
    try:
        spec = spec_from_system(team_catalog(project.team_id), system_id, systems, name)
    except SpecValidationError as exc:
        raise DesignSpecInvalid(exc.errors) from exc
    return design_create(
        actor=actor,
        project=project,
        name=name,
        spec=spec,
        message=f"Created from catalog system {system_id} x {systems}",
    )


def design_create_from_upload(
    *, actor, project: Project, name: str, filename: str, content: bytes
) -> Design:
    """A design from an uploaded JSON / CSV / XLSX spec (ImportFileInvalid: unreadable)."""
    return design_create(
        actor=actor,
        project=project,
        name=name,
        spec=spec_from_upload(filename, content),
        message=f"Imported from {filename}",
    )


# ---- spreadsheets: a patch onto a base revision, a batch of variants ---------------------


def _validated_patch(base: DesignRevision, cells) -> tuple[dict, str, list[SheetError]]:
    """(canonical spec, hash, errors) of the base revision with the cells applied."""
    spec, errors = patched_spec(base.spec, cells)
    if errors:
        return {}, "", errors
    try:
        canonical, digest = validated_spec(spec, team_id=base.design.project.team_id)
    except DesignSpecInvalid as exc:
        return {}, "", errors_at_cells(exc.errors, cells)
    return canonical, digest, []


@transaction.atomic
def design_revision_patch(
    *, actor, base: DesignRevision, filename: str, content, message: str = ""
) -> tuple[DesignRevision, bool]:
    """(revision, created): one new revision, the base revision with the sheet's (path,
    value) rows applied, validated as a whole. SheetInvalid names each bad row and column;
    nothing is saved then. A result equal to the latest revision creates nothing and
    returns that revision."""
    cells = patch_cells(filename, content)
    canonical, digest, errors = _validated_patch(base, cells)
    if errors:
        raise SheetInvalid(errors)
    design = Design.objects.select_for_update().get(pk=base.design_id)
    latest = design.latest_revision
    if latest is not None and latest.spec_hash == digest:
        return latest, False
    text = message or _patch_message(filename, base, canonical)
    revision = _revision_insert(
        actor=actor, design=design, spec=canonical, digest=digest, message=text
    )
    return revision, True


def _patch_message(filename: str, base: DesignRevision, spec: dict) -> str:
    """'plan.xlsx onto r1: compute.gpu_count': what changed, not how many rows the sheet had."""
    paths = [change["path"] for change in spec_diff(base.spec, spec)]
    shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    return f"{filename} onto r{base.number}: {shown}"[:500]


def _variant_name(base: DesignRevision, variant: Variant, index: int) -> str:
    return variant.name or f"{base.design.name} variant {index}"


def _validated_variants(base, variants, mode: str) -> tuple[list, list[SheetError]]:
    checked, errors, names = [], [], {}
    taken = set(base.design.project.designs.values_list("name", flat=True))
    for index, variant in enumerate(variants, start=1):
        canonical, digest, row_errors = _validated_patch(base, variant.cells)
        errors += row_errors
        name = _variant_name(base, variant, index)
        if mode == VariantMode.DESIGNS and (name in taken or name in names):
            message = f"the project already has a design named “{name}” (rows need own names)"
            if name in names:
                message = f"the same name as row {names[name]}"
            errors.append(SheetError(variant.row, variant.name_column, "name", "name", message))
        names.setdefault(name, variant.row)
        checked.append((variant, name, canonical, digest))
    return checked, errors


@transaction.atomic
def design_variants_create(
    *, actor, base: DesignRevision, filename: str, content, mode: str
) -> list[DesignRevision]:
    """One design (mode designs) or one revision of the base design (mode revisions) per row
    of a variants sheet, each the base revision with the row's cells applied. All or nothing:
    any bad row raises SheetInvalid naming every bad row and column, and nothing is saved."""
    variants = variant_rows(filename, content)
    checked, errors = _validated_variants(base, variants, mode)
    if errors:
        raise SheetInvalid(errors)
    created = []
    for variant, name, canonical, digest in checked:
        message = f"{filename} row {variant.row}: variant of {base.design.name} r{base.number}"
        if mode == VariantMode.DESIGNS:
            design = _design_insert(actor=actor, project=base.design.project, name=name)
            audit_record(
                actor=actor, team=design.project.team, action="design.create", target=design
            )
        else:
            design = Design.objects.select_for_update().get(pk=base.design_id)
        created.append(
            _revision_insert(
                actor=actor, design=design, spec=canonical, digest=digest, message=message
            )
        )
    return created


def _design_insert(*, actor, project: Project, name: str) -> Design:
    with unique_name(DesignNameTaken(name)):
        return Design.objects.create(project=project, name=name, created_by=actor)


def _revision_insert(
    *, actor, design: Design, spec: dict, digest: str, message: str
) -> DesignRevision:
    last = design.revisions.order_by("-number").values_list("number", flat=True).first() or 0
    revision = DesignRevision.objects.create(
        design=design,
        number=last + 1,
        spec=spec,
        spec_hash=digest,
        message=message,
        author=actor,
    )
    audit_record(
        actor=actor,
        team=design.project.team,
        action="revision.create",
        target=revision,
        data={"design": design.pk, "number": revision.number, "spec_hash": digest},
    )
    return revision


@transaction.atomic
def design_create_blank(*, actor, project: Project, name: str) -> Design:
    """A design with no revision yet: the editor's first save creates revision 1."""
    design = _design_insert(actor=actor, project=project, name=name)
    audit_record(
        actor=actor, team=project.team, action="design.create", target=design, data={"blank": True}
    )
    return design


@transaction.atomic
def design_clone(*, actor, design: Design, name: str) -> Design:
    source = design.latest_revision
    clone = _design_insert(actor=actor, project=design.project, name=name)
    if source is not None:
        _revision_insert(
            actor=actor,
            design=clone,
            spec=source.spec,
            digest=source.spec_hash,
            message=f"Cloned from {design.name} r{source.number}",
        )
    audit_record(
        actor=actor,
        team=design.project.team,
        action="design.clone",
        target=clone,
        data={"source_design": design.pk},
    )
    return clone


@transaction.atomic
def design_revert(*, actor, design: Design, revision: DesignRevision) -> DesignRevision:
    """Reverting never rewrites history: it adds a revision holding the old spec."""
    if revision.design_id != design.pk:
        raise ValueError("revision belongs to another design")
    return design_revision_create(
        actor=actor, design=design, spec=revision.spec, message=f"Revert to r{revision.number}"
    )


def draft_save(*, actor, design: Design, form_data: dict) -> DesignDraft:
    draft, _ = DesignDraft.objects.update_or_create(
        design=design,
        user=actor,
        defaults={"form_data": form_data, "base_revision": design.latest_revision},
    )
    return draft


def draft_discard(*, actor, design: Design) -> None:
    DesignDraft.objects.filter(design=design, user=actor).delete()


class RiskAcceptanceInvalid(DomainError):
    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))


def _check_acceptance(check_id: str, reason: str, owner: str, expires) -> dict[str, str]:
    errors = {}
    known = {check.record.id for check in load_security_rules().checks}
    if check_id not in known:
        errors["check_id"] = "not a security check id of the current rules"
    if len(reason.strip()) < 10:
        errors["reason"] = "say why the risk is acceptable (at least 10 characters)"
    if not owner.strip():
        errors["owner"] = "name who answers for this risk"
    if expires is None or expires <= timezone.localdate():
        errors["expires"] = "a date in the future (acceptances must be reviewed)"
    return errors


@transaction.atomic
def risk_accept(
    *, actor, design: Design, check_id: str, reason: str, owner: str, expires
) -> AcceptedRisk:
    errors = _check_acceptance(check_id, reason, owner, expires)
    if errors:
        raise RiskAcceptanceInvalid(errors)
    # One live acceptance per check: a new one replaces the old.
    design.accepted_risks.filter(check_id=check_id, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    risk = AcceptedRisk.objects.create(
        design=design,
        check_id=check_id,
        reason=reason.strip(),
        owner=owner.strip(),
        expires=expires,
        created_by=actor,
    )
    audit_record(
        actor=actor,
        team=design.project.team,
        action="risk.accept",
        target=risk,
        data={
            "check_id": check_id,
            "owner": risk.owner,
            "expires": expires.isoformat(),
            "reason": risk.reason,
        },
    )
    return risk
