"""Writes of reports: the snapshot (with its audit row, in one transaction) and the PDF state.

A report copies each covered design's latest finished run (results and headline, spec hash,
engine version) and computes the primary design's roadmap once, when it is made; nothing
about it is read from the live designs afterwards."""

import logging

from celery import current_app
from django.db import transaction
from django.utils import timezone

import models_engine
from studio.catalog.selectors import team_catalog_entries
from studio.core.audit import audit_record
from studio.core.errors import DomainError
from studio.designs.models import Design, Project
from studio.reports.models import PdfStatus, Report
from studio.reports.pdf import render_report_pdf
from studio.reviews.selectors import signoff_of
from studio.runs.models import EngineRun
from studio.runs.selectors import latest_done_run, results_are_current

logger = logging.getLogger(__name__)

MIN_DESIGNS, MAX_DESIGNS = 1, 4


class ReportInvalid(DomainError):
    def __init__(self, message: str, field: str = "designs"):
        super().__init__(message)
        self.field = field


def snapshot_of(design: Design) -> dict:
    """What a report keeps of a design: its latest finished run, frozen."""
    run = latest_done_run(
        EngineRun.objects.filter(revision__design=design).select_related("revision")
    )
    if run is None or not results_are_current(run.results):
        raise ReportInvalid(f"“{design.name}” has no finished run of the current engines.")
    revision = run.revision
    return {
        "design_id": design.pk,
        "design_name": design.name,
        "revision_id": revision.pk,
        "revision_number": revision.number,
        "spec_hash": run.spec_hash,
        "engine_version": run.engine_version or run.results.get("engine_version", ""),
        "run_id": run.pk,
        "spec": revision.spec,
        "results": run.results,
        "headline": run.results.get("headline") or {},
    }


def roadmap_for(project: Project, primary: dict, baseline: dict | None) -> tuple[dict | None, str]:
    """The roadmap engine's result for the primary design, or None and why."""
    evaluate_roadmap = getattr(models_engine, "evaluate_roadmap", None)
    if evaluate_roadmap is None:
        return None, "The roadmap engine is not available in this version of the engines."
    try:
        result = evaluate_roadmap(
            primary["spec"],
            catalog_entries=team_catalog_entries(project.team_id),
            baseline_doc=baseline["spec"] if baseline else None,
            # `results` takes the engines' typed results (run_engines), not stored JSON: the
            # roadmap engine runs the design itself.
        )
    except Exception as exc:  # the engine's failure is shown in the report, not a 500
        logger.exception("roadmap of report failed")
        return None, f"{type(exc).__name__}: {exc}"
    return result.to_json(), ""


def report_create(
    *,
    actor,
    project: Project,
    title: str,
    summary: str,
    designs: list[Design],
    baseline: Design | None = None,
    dispatch: bool = True,
) -> Report:
    if not MIN_DESIGNS <= len(designs) <= MAX_DESIGNS:
        raise ReportInvalid(f"Pick between {MIN_DESIGNS} and {MAX_DESIGNS} designs.")
    if len({d.pk for d in designs}) != len(designs):
        raise ReportInvalid("Each design can be picked once.")
    if any(d.project_id != project.pk for d in [*designs, *([baseline] if baseline else [])]):
        raise ReportInvalid("Every design must belong to this project.")
    if not title.strip():
        raise ReportInvalid("A report needs a title.", field="title")
    # The sign-off (reviewers, verdicts, open comments) is frozen with the results it judged.
    covers = [{**snapshot_of(d), "signoff": signoff_of(d)} for d in designs]
    base = snapshot_of(baseline) if baseline else None
    roadmap, roadmap_error = roadmap_for(project, covers[0], base)
    with transaction.atomic():
        report = Report.objects.create(
            project=project,
            title=title.strip(),
            summary=summary.strip(),
            author=actor,
            covers=covers,
            baseline=base,
            roadmap=roadmap,
            roadmap_error=roadmap_error,
        )
        audit_record(
            actor=actor,
            team=project.team,
            action="report.create",
            target=report,
            data={
                "title": report.title,
                "revisions": [c["revision_id"] for c in covers],
                "baseline_revision": base["revision_id"] if base else None,
            },
        )
        if dispatch:
            transaction.on_commit(lambda: report_pdf_enqueue(report))
    return report


BUILD_PDF_TASK = "reports.build_report_pdf"


def report_pdf_enqueue(report: Report) -> None:
    Report.objects.filter(pk=report.pk).update(pdf_status=PdfStatus.QUEUED, pdf_error="")
    # By name from the Celery app: reports/tasks.py registers it and calls into this module.
    current_app.tasks[BUILD_PDF_TASK].delay(report.pk)


def report_pdf_build(*, report_id: int) -> Report:
    """Render and store the report's PDF (what the Celery task calls)."""

    report = Report.objects.select_related("project", "author").get(pk=report_id)
    Report.objects.filter(pk=report.pk).update(pdf_status=PdfStatus.RUNNING, pdf_error="")
    started = timezone.now()
    try:
        pdf, pages = render_report_pdf(report)
    except Exception as exc:
        logger.exception("PDF of report %s failed", report.pk)
        Report.objects.filter(pk=report.pk).update(
            pdf_status=PdfStatus.FAILED, pdf_error=f"{type(exc).__name__}: {exc}"
        )
    else:
        finished = timezone.now()
        Report.objects.filter(pk=report.pk).update(
            pdf=pdf,
            pdf_pages=pages,
            pdf_status=PdfStatus.DONE,
            pdf_built_at=finished,
            pdf_seconds=(finished - started).total_seconds(),
        )
    report.refresh_from_db()
    return report
