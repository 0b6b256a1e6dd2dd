"""CSV / XLSX downloads. Signed-in users (session or API token) get what their teams may see;
a spreadsheet feed token (?token=) opens the exports of its one project, read-only."""

from django.http import Http404, HttpResponse
from django.utils.text import slugify

from studio.accounts.download_auth import token_readable
from studio.core.audit import audit_record
from studio.core.inputs import id_or_404
from studio.designs.models import Project
from studio.designs.selectors import projects_visible_to
from studio.reports.renderers import CONTENT_TYPES, render
from studio.runs.columns import design_columns
from studio.runs.models import EngineRun
from studio.runs.selectors import runs_visible_to, typed_results
from studio.runs.tables import RUN_TABLES, project_designs_table, run_table


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


def _respond(rows: list[dict], fmt: str, filename: str, title: str) -> HttpResponse:
    response = HttpResponse(render(rows, fmt, title), content_type=CONTENT_TYPES[fmt])
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
    rows = project_designs_table(design_columns(project.designs.all()))
    _audit_feed_use(feed, project, f"designs.{fmt}")
    return _respond(rows, fmt, f"{slugify(project.name)}-designs", "designs")


@token_readable
def run_table_export(request, pk: str, table: str, fmt: str):
    user, feed = _caller(request)
    if user is not None:
        run = runs_visible_to(user).filter(pk=pk).first()
    elif feed is not None:
        run = EngineRun.objects.filter(pk=pk, revision__design__project=feed.project_id).first()
    else:
        run = None
    rows = run_table(typed_results(run), table)
    if run is None or rows is None:
        raise Http404("No such run or table")
    project = run.revision.design.project
    _audit_feed_use(feed, project, f"run {pk} {table}.{fmt}")
    title = RUN_TABLES[table][0]
    return _respond(rows, fmt, f"run-{pk}-{table}", title)
