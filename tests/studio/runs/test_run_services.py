"""Runs: the cache of identical revisions, a failing engine recorded on the run."""

import pytest

from studio.runs.models import EngineRun, RunStatus

pytestmark = pytest.mark.django_db


def test_identical_revision_reuses_the_cached_result(
    client, team_a, design_in, django_capture_on_commit_callbacks
):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/designs/{design.pk}/evaluate/")
    client.post(f"/designs/{design.pk}/evaluate/")
    first, second = EngineRun.objects.order_by("pk")
    assert second.cached_from_id == first.pk
    assert second.results == first.results


def test_failed_run_records_why(team_a, design_in, monkeypatch):
    import models_engine
    from studio.runs import services

    alice, alpha = team_a
    design = design_in(alice, alpha)

    def broken(spec, on_progress=None, **inputs):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(models_engine, "evaluate", broken)
    run = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run = services.run_execute(run_id=run.pk)
    assert run.status == RunStatus.FAILED and "engine exploded" in run.error
