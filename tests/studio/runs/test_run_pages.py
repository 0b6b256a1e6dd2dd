"""The run page: progress polling, retry, results of an older engine version, every site."""

import pytest

from studio.core.process_cache import ProcessCache
from studio.runs.models import EngineRun
from tests.studio.runs.page_figures import page_figures

pytestmark = pytest.mark.django_db


def test_run_page_polls_until_finished(client, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    from studio.runs import services

    run = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    client.force_login(alice)
    partial = client.get(f"/runs/{run.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert 'hx-trigger="every 1s"' in partial and "<html" not in partial
    # Every engine is listed, so progress reads engine by engine while the run goes.
    assert all(f'<li class="">{name}</li>' in partial for name in run.progress["engines"])
    assert "queued, waiting for a worker" in partial
    services.run_execute(run_id=run.pk)
    partial = client.get(f"/runs/{run.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert "hx-trigger" not in partial and 'data-status="done"' in partial


def test_failed_run_can_be_retried(client, team_a, design_in, monkeypatch):
    import models_engine
    from studio.runs import services

    alice, alpha = team_a
    design = design_in(alice, alpha)
    real = models_engine.evaluate
    monkeypatch.setattr(models_engine, "evaluate", lambda *a, **k: 1 / 0)
    failed = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    failed = services.run_execute(run_id=failed.pk)
    monkeypatch.setattr(models_engine, "evaluate", real)
    client.force_login(alice)
    assert "retry-run" in client.get(f"/runs/{failed.pk}/").content.decode()
    response = client.post(f"/runs/{failed.pk}/retry/")
    retried = EngineRun.objects.exclude(pk=failed.pk).get()
    assert response.status_code == 302 and retried.cached_from is None


def _age_results(run: EngineRun, results: dict) -> None:
    """Store `results` as an older engine version would have: no result_schema_version and
    the old single-site shapes (`fabric.scale_out`, `facility.power`)."""
    old = {key: value for key, value in results.items() if key != "result_schema_version"}
    old["fabric"] = {"scale_out": {"tiers": 2}, "bom": []}
    old["facility"] = {"power": {"it_kw": {"total": 1.0}}}
    EngineRun.objects.filter(pk=run.pk).update(results=old)
    ProcessCache.clear_all()  # older results were stored by an older deploy: a new process


def test_results_of_an_older_engine_version_ask_for_a_re_run(
    client, team_a, design_in, django_capture_on_commit_callbacks
):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/designs/{design.pk}/evaluate/")
    run = EngineRun.objects.get()
    assert run.results, (run.status, run.error)
    _age_results(run, run.results)
    page = client.get(f"/runs/{run.pk}/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Results from an older engine version — re-run" in body
    assert 'id="rerun-outdated"' in body and 'id="results-fabric"' not in body
    assert client.get(f"/designs/{design.pk}/").status_code == 200
    assert client.get(f"/exports/runs/{run.pk}/bom.csv").status_code == 404
    # Evaluating again runs the engines: the old cached result is not reused.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/designs/{design.pk}/evaluate/")
    fresh = EngineRun.objects.order_by("-pk").first()
    assert fresh.cached_from_id is None
    assert fresh.results["result_schema_version"] >= 2
    assert 'id="results-fabric"' in client.get(f"/runs/{fresh.pk}/").content.decode()


def test_a_multi_site_run_shows_every_site(
    client, team_a, design_in, django_capture_on_commit_callbacks
):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug="two-region-hierarchical")
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/designs/{design.pk}/evaluate/")
    run = EngineRun.objects.get()
    body = client.get(f"/runs/{run.pk}/").content.decode()
    for site in run.results["fabric"]["sites"]:
        assert f'id="fabric-site-{site["site_id"]}"' in body
        assert f'id="facility-site-{site["site_id"]}"' in body
        assert f'id="chart-fabric-diagram-{site["site_id"]}"' in body
    assert 'id="fabric-sites"' in body and 'id="facility-sites"' in body
    bom = client.get(f"/exports/runs/{run.pk}/bom.csv").content.decode()
    assert bom.splitlines()[0].startswith("Site,")


def test_results_page_reads_the_figures_stored_on_the_run(client, team_a, design_in):
    """The worker stores the figures when the run finishes; the page reads them, and figures
    made by other chart code are rebuilt rather than shown stale."""
    from studio.runs import services as run_services
    from studio.runs.charts import CHARTS_VERSION
    from studio.runs.models import EngineRun
    from studio.runs.tasks import evaluate_run

    alice, alpha = team_a
    design = design_in(alice, alpha)
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    evaluate_run.apply(args=[run.pk])  # the task, eagerly: results, then figures
    run = EngineRun.objects.get(pk=run.pk)
    assert run.figures["version"] == CHARTS_VERSION
    stored_ids = [f["id"] for s in run.figures["sections"] for f in s["figures"]]
    assert stored_ids
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert all(f'data-figure-id="{figure_id}"' in page for figure_id in stored_ids)
    assert set(page_figures(client, page)) == set(stored_ids)
    EngineRun.objects.filter(pk=run.pk).update(figures={"version": "old", "sections": []})
    ProcessCache.clear_all()  # other chart code means a new deploy: a restarted process
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert all(f'data-figure-id="{figure_id}"' in page for figure_id in stored_ids)
    assert EngineRun.objects.get(pk=run.pk).figures["version"] == CHARTS_VERSION
