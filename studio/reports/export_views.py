"""CSV / XLSX downloads. Signed-in users (session or API token) get what their teams may see;
a spreadsheet feed token (?token=) opens the exports of its one project, read-only."""

from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.utils.text import slugify

from studio.accounts.download_auth import token_readable
from studio.core.audit import audit_record
from studio.core.inputs import id_or_404, parse_int
from studio.designs.models import Design, Project
from studio.designs.selectors import designs_visible_to, projects_visible_to
from studio.reports.export_tables import (
    project_designs_export_table,
    run_export_table,
    spec_export_table,
)
from studio.reports.renderers import CONTENT_TYPES, Table, render
from studio.runs.columns import design_columns
from studio.runs.models import EngineRun
from studio.runs.selectors import runs_visible_to, typed_results


def _caller(request):
    """(user or None, feed token or None); DownloadTokenMiddleware read the tokens."""
    if request.user.is_authenticated:
        return request.user, None
    return None, getattr(request, "feed_token", None)


def _project_for(request, project_id: int) -> tuple[Project, object]:
    user, feed = _caller(request)
    if user is not None:
        project = projects_visible_to(user).filter(pk=project_id).first()
    elif feed is not None and feed.project_id == project_id:
        project = feed.project
    else:
        project = None
    if project is None:
        raise Http404("No such project")
    return project, feed


def _respond(table: Table, fmt: str, filename: str) -> HttpResponse:
    response = HttpResponse(render(table, fmt), content_type=CONTENT_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


def _audit_feed_use(feed, project, what: str) -> None:
    if feed is not None:
        audit_record(
            actor=feed.user,
            team=project.team,
            action="feed.read",
            target=project,
            data={"token": feed.pk, "export": what},
        )


@token_readable
def project_designs_export(request, pk: str, fmt: str):
    project, feed = _project_for(request, id_or_404(pk))
    table = project_designs_export_table(project, design_columns(project.designs.all()))
    _audit_feed_use(feed, project, f"designs.{fmt}")
    return _respond(table, fmt, f"{slugify(project.name)}-designs")


@token_readable
def run_table_export(request, pk: str, table: str, fmt: str):
    user, feed = _caller(request)
    if user is not None:
        run = runs_visible_to(user).filter(pk=pk).first()
    elif feed is not None:
        run = EngineRun.objects.filter(pk=pk, revision__design__project=feed.project_id).first()
    else:
        run = None
    sheet = run_export_table(run, typed_results(run), table) if run is not None else None
    if sheet is None:
        raise Http404("No such run or table")
    project = run.revision.design.project
    _audit_feed_use(feed, project, f"run {pk} {table}.{fmt}")
    return _respond(sheet, fmt, f"run-{pk}-{table}")


def _design_for(request, design_id: int) -> tuple[Design, object]:
    user, feed = _caller(request)
    if user is not None:
        design = designs_visible_to(user).filter(pk=design_id).first()
    elif feed is not None:
        design = Design.objects.filter(pk=design_id, project=feed.project_id).first()
    else:
        design = None
    if design is None:
        raise Http404("No such design")
    return design, feed


@token_readable
def design_spec_export(request, pk: str, fmt: str):
    """Any revision's spec as a sheet (?revision=N; default the latest), one row per path."""
    design, feed = _design_for(request, id_or_404(pk))
    wanted = request.GET.get("revision")
    revisions = design.revisions.order_by("-number")
    if wanted is None:
        revision = revisions.first()
    else:
        number = parse_int(wanted.strip().removeprefix("r"), maximum=2**31 - 1)
        revision = revisions.filter(number=number).first() if number is not None else None
        if revision is None:
            numbers = ", ".join(f"{r}" for r in revisions.values_list("number", flat=True)[:50])
            return HttpResponseBadRequest(
                f"revision: one of this design's revision numbers ({numbers or 'none yet'})",
                content_type="text/plain; charset=utf-8",
            )
    if revision is None:
        raise Http404("This design has no revision yet")
    _audit_feed_use(feed, design.project, f"design {design.pk} r{revision.number} spec.{fmt}")
    filename = f"{slugify(design.name) or 'design'}-r{revision.number}-spec"
    return _respond(spec_export_table(revision), fmt, filename)
