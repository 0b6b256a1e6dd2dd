"""Design sweeps in the studio: created in chunks, evaluated (eagerly here; on a real worker in
test_sweep_worker.py), reduced by the last chunk, shown, exported, and any variant saved as a
revision; bad definitions answer 400 naming the field; scoped by team and role."""

import csv
import io

import numpy as np
import pytest
from openpyxl import load_workbook

import models_engine
from studio.runs.models import RunStatus, Sweep, SweepChunk, SweepStatus
from studio.runs.sweeps import services
from studio.runs.sweeps.execution import chunk_execute, sweep_chunk_columns

pytestmark = pytest.mark.django_db

DEFINITION = {
    "axes": [
        {"path": "compute.gpu_count", "values": [128, 256, 512]},
        {"path": "facility.pue", "values": [1.2, 1.5]},
        {"path": "economics.utilisation", "range": {"start": 0.5, "stop": 0.9, "count": 5}},
        {
            "path": "economics.price_overrides.power_usd_per_kwh",
            "range": {"start": 0.04, "stop": 0.16, "count": 4},
        },
    ],
    "constraints": {"max_time_to_train_days": 30, "memory_must_fit": True},
    "objectives": ["tco", "time_to_train"],
}


@pytest.fixture
def small_chunks(settings):
    settings.SWEEP_MIN_CHUNKS = 5
    return settings


def _run(design, user, capture, definition=DEFINITION):
    with capture(execute=True):
        sweep = services.sweep_create(actor=user, design=design, definition=definition)
    return Sweep.objects.get(pk=sweep.pk)


def test_a_sweep_runs_in_chunks_and_the_last_one_reduces(
    team_a, design_in, small_chunks, django_capture_on_commit_callbacks
):
    user, team = team_a
    design = design_in(user, team)
    sweep = _run(design, user, django_capture_on_commit_callbacks)
    assert sweep.status == SweepStatus.DONE, sweep.error
    assert sweep.chunk_count == 5
    assert (sweep.chunks_done, sweep.variants_done) == (5, 120)
    assert sweep.summary["total"] == 120
    assert sweep.summary["feasible"] > 0
    assert sweep.summary["pareto_count"] >= 1
    # the reduction equals the engine's over the same stored columns
    definition = models_engine.SweepDefinition.model_validate(sweep.definition)
    expected = models_engine.reduce_sweep(definition, sweep_chunk_columns(sweep))
    assert sweep.summary["best"] == expected["best"]


def test_a_chunk_delivered_twice_is_counted_once(
    team_a, design_in, small_chunks, django_capture_on_commit_callbacks
):
    user, team = team_a
    sweep = _run(design_in(user, team), user, django_capture_on_commit_callbacks)
    chunk = SweepChunk.objects.filter(sweep=sweep).first()
    assert chunk_execute(chunk.pk) is False  # already done: nothing claimed, nothing counted
    sweep.refresh_from_db()
    assert sweep.chunks_done == sweep.chunk_count


def test_pages_exports_and_save_as_revision(
    client, team_a, design_in, small_chunks, django_capture_on_commit_callbacks
):
    user, team = team_a
    design = design_in(user, team)
    client.force_login(user)
    page = client.get(f"/designs/{design.pk}/sweeps/")
    assert page.status_code == 200 and b"compute.gpu_count" in page.content
    post = {
        "name": "scale",
        "axis_0_path": "compute.gpu_count",
        "axis_0_values": "128, 256",
        "axis_1_path": "economics.utilisation",
        "axis_1_values": "0.5..0.9/3",
        "max_time_to_train_days": "40",
        "memory_must_fit": "on",
        "objectives": ["tco", "time_to_train"],
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/designs/{design.pk}/sweeps/", post)
    assert response.status_code == 302, response.content.decode()[:2000]
    sweep = Sweep.objects.get(design=design)
    assert sweep.total_variants == 6 and sweep.status == SweepStatus.DONE
    detail = client.get(f"/sweeps/{sweep.pk}/")
    body = detail.content.decode()
    assert "chart-sweep-pareto" in body and "chart-sweep-parallel" in body
    assert "Best variant per objective" in body and "Save as revision" in body
    rows = list(
        csv.reader(
            io.StringIO(
                b"".join(client.get(f"/sweeps/{sweep.pk}/variants.csv").streaming_content).decode()
            )
        )
    )
    assert len(rows) == 7 and rows[0][:3] == [
        "variant",
        "compute.gpu_count",
        "economics.utilisation",
    ]
    book = load_workbook(io.BytesIO(client.get(f"/sweeps/{sweep.pk}/variants.xlsx").content))
    assert book.active.max_row == 7
    best = sweep.summary["best"]["tco"]
    saved = client.post(f"/sweeps/{sweep.pk}/save-variant/", {"index": best["index"]})
    assert saved.status_code == 302
    revision = design.revisions.order_by("-number").first()
    assert revision.number == 2
    assert revision.spec["compute"]["gpu_count"] == best["inputs"]["compute.gpu_count"]
    assert revision.spec["economics"]["utilisation"] == best["inputs"]["economics.utilisation"]
    assert client.post(f"/sweeps/{sweep.pk}/save-variant/", {"index": "99"}).status_code == 400


def test_bad_definitions_answer_400_naming_the_field(client, team_a, design_in):
    user, team = team_a
    design = design_in(user, team)
    client.force_login(user)
    base = {"axis_0_path": "compute.gpu_count", "objectives": ["tco"], "memory_must_fit": "on"}
    for values, message in (
        ("", "give a list"),
        ("1..x/3", "compute.gpu_count"),
        ("128, -8", "compute.gpu_count"),
        ("0.5..0.9/0", "greater than or equal to 1"),
    ):
        response = client.post(f"/designs/{design.pk}/sweeps/", {**base, "axis_0_values": values})
        assert response.status_code == 400, values
        assert message in response.content.decode(), (values, message)
    assert not Sweep.objects.exists()
    with pytest.raises(services.SweepInvalid) as caught:
        services.sweep_create(
            actor=user, design=design, definition={"axes": [{"path": "compute.gpu_count"}]}
        )
    assert "axes.0" in caught.value.errors


def test_viewers_cannot_start_and_other_teams_get_404(
    client, team_a, team_b, make_member, design_in, small_chunks, django_capture_on_commit_callbacks
):
    user, team = team_a
    design = design_in(user, team)
    sweep = _run(design, user, django_capture_on_commit_callbacks)
    viewer, _ = make_member("vic", "Alpha", role="viewer")
    client.force_login(viewer)
    assert client.get(f"/sweeps/{sweep.pk}/").status_code == 200
    assert client.post(f"/designs/{design.pk}/sweeps/", {}).status_code == 403
    assert client.post(f"/sweeps/{sweep.pk}/save-variant/", {"index": 0}).status_code == 403
    bob, _ = team_b
    client.force_login(bob)
    for url in (
        f"/sweeps/{sweep.pk}/",
        f"/sweeps/{sweep.pk}/variants.csv",
        f"/designs/{design.pk}/sweeps/",
    ):
        assert client.get(url).status_code == 404


def test_cancel_stops_unclaimed_chunks(team_a, design_in, small_chunks):
    user, team = team_a
    design = design_in(user, team)
    sweep = services.sweep_create(actor=user, design=design, definition=DEFINITION)  # not sent
    assert services.sweep_cancel(actor=user, sweep=sweep)
    first = SweepChunk.objects.filter(sweep=sweep).first()
    assert chunk_execute(first.pk) is False
    assert SweepChunk.objects.filter(sweep=sweep, status=RunStatus.QUEUED).count() == 5


def test_reaper_resends_a_chunk_whose_worker_died(team_a, design_in, small_chunks, settings):
    from datetime import timedelta

    from django.utils import timezone

    user, team = team_a
    sweep = services.sweep_create(actor=user, design=design_in(user, team), definition=DEFINITION)
    settings.CELERY_TASK_ALWAYS_EAGER = True
    long_ago = timezone.now() - timedelta(seconds=settings.SWEEP_CHUNK_STALE_S + 5)
    # chunk 0: claimed by a worker that died; the others: messages lost (never sent)
    SweepChunk.objects.filter(sweep=sweep, number=0).update(
        status=RunStatus.RUNNING, started_at=long_ago, attempts=1
    )
    Sweep.objects.filter(pk=sweep.pk).update(created_at=long_ago, progress_at=long_ago)
    report = services.sweeps_reap()
    assert report["chunks_sent"] == 5
    sweep.refresh_from_db()
    assert sweep.status == SweepStatus.DONE and sweep.variants_done == 120
    assert np.all(np.concatenate([c.invalid for c in sweep_chunk_columns(sweep)]) == -1)


def test_progress_partial_polls_until_done_then_reloads_the_page(
    client, team_a, design_in, small_chunks, django_capture_on_commit_callbacks
):
    user, team = team_a
    design = design_in(user, team)
    queued = services.sweep_create(actor=user, design=design, definition=DEFINITION)  # not sent
    client.force_login(user)
    partial = client.get(f"/sweeps/{queued.pk}/", headers={"HX-Request": "true"})
    body = partial.content.decode()
    assert "0 of 120 variants" in body and 'hx-trigger="every 1s"' in body
    assert "HX-Refresh" not in partial.headers
    services.sweep_dispatch(queued.pk)  # eager: every chunk runs now
    done = client.get(f"/sweeps/{queued.pk}/", headers={"HX-Request": "true"})
    assert "120 of 120 variants" in done.content.decode()
    assert done.headers["HX-Refresh"] == "true"


def test_reaper_finishes_a_stalled_reduction_and_fails_an_exhausted_chunk(
    team_a, design_in, small_chunks, settings, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.utils import timezone

    user, team = team_a
    design = design_in(user, team)
    long_ago = timezone.now() - timedelta(seconds=settings.SWEEP_CHUNK_STALE_S + 5)
    # every chunk stored, but the worker reducing it died
    done = _run(design, user, django_capture_on_commit_callbacks)
    Sweep.objects.filter(pk=done.pk).update(
        status=SweepStatus.REDUCING, summary=None, progress_at=long_ago
    )
    assert services.sweeps_reap()["reductions_sent"] == 1
    done.refresh_from_db()
    assert done.status == SweepStatus.DONE and done.summary["total"] == 120
    # a chunk that lost its worker on every attempt
    stuck = services.sweep_create(actor=user, design=design, definition=DEFINITION)
    SweepChunk.objects.filter(sweep=stuck, number=2).update(
        status=RunStatus.RUNNING, started_at=long_ago, attempts=settings.RUNS_MAX_ATTEMPTS
    )
    assert services.sweeps_reap()["failed"] == 1
    stuck.refresh_from_db()
    assert stuck.status == SweepStatus.FAILED and "Chunk 2 lost its worker" in stuck.error


def test_result_tables_state_units():
    from studio.runs.sweeps import tables

    assert tables.format_input(256, "compute.gpu_count") == "256 GPUs"
    assert tables.format_input(30.0, "storage.checkpoint.interval_min") == "30 min"
    assert tables.format_input(1.3, "facility.pue") == "1.3 (ratio)"
    assert tables.format_input(0.5, "regions.sites.0.gpu_share") == "0.5 (fraction)"
    assert tables.format_input("colocation", "economics.ownership") == "colocation"
    summary = {
        "total": 1_000_000,
        "valid": 800_000,
        "feasible": 1_234,
        "pareto_count": 17,
        "infeasible_by_constraint": {"capex > 1,000,000,000 USD": 200_000},
        "invalid_by_reason": {"compute.gpu_count: dp not whole": 200_000},
    }
    rows = tables.infeasible_rows(summary)
    assert [(r["count"], r["share"]) for r in rows] == [
        ("200,000", "25.0 % of valid variants"),
        ("200,000", "20.0 % of all variants"),
    ]
    assert ("feasible-count", "Feasible", "1,234 (0.1 %)") in tables.count_cards(summary)


def test_parallel_coordinates_name_each_axis_once(
    team_a, design_in, small_chunks, django_capture_on_commit_callbacks
):
    """Every swept input and objective is named once, by the x tick text; no annotation repeats
    a name on top of it (they overlapped their neighbours with many axes)."""
    from studio.runs.sweeps.figures import parallel_figure

    user, team = team_a
    sweep = _run(design_in(user, team), user, django_capture_on_commit_callbacks)
    figure = parallel_figure(sweep.summary)
    names = list(figure.layout.xaxis.ticktext)
    assert len(names) == len(DEFINITION["axes"]) + len(DEFINITION["objectives"])
    annotations = [a.text for a in figure.layout.annotations]
    assert not set(names) & set(annotations)
