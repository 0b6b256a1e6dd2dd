"""Download of a run's switch configurations (FRR and Arista EOS, one file per switch, zipped),
rendered by the engine from the run's fabric and network results. Same callers as the other
exports: signed-in users (session or API token) for runs their teams may see, a spreadsheet
feed token (?token=) for the runs of its one project."""

from django.http import Http404, HttpResponse

import models_engine
from studio.accounts.download_auth import token_readable
from studio.reports.export_views import _audit_feed_use, _caller
from studio.runs.models import EngineRun
from studio.runs.selectors import runs_visible_to, typed_results


def _visible_run(request, pk: int):
    user, feed = _caller(request)
    if user is not None:
        return runs_visible_to(user).filter(pk=pk).first(), feed
    if feed is not None:
        return EngineRun.objects.filter(
            pk=pk, revision__design__project=feed.project_id
        ).first(), feed
    return None, None


@token_readable
def run_network_configs(request, pk: int):
    run, feed = _visible_run(request, pk)
    results = typed_results(run)
    if run is None or results is None or results.network is None or results.fabric is None:
        raise Http404("No such run, or it has no network plan")
    try:
        archive = models_engine.network_configs_zip(results.fabric, results.network)
    except models_engine.PoolExhausted as exc:
        return HttpResponse(str(exc), status=409, content_type="text/plain; charset=utf-8")
    _audit_feed_use(feed, run.revision.design.project, f"run {pk} network-configs.zip")
    response = HttpResponse(archive, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="run-{pk}-network-configs.zip"'
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response
