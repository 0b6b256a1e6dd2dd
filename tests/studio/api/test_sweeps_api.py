"""Sweeps over REST: create (202), watch the progress, fetch the results; a bad definition
names the field (400); another team's design or sweep is a 404; viewers cannot create."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from studio.runs.models import Sweep

pytestmark = pytest.mark.django_db

DEFINITION = {
    "axes": [
        {"path": "compute.gpu_count", "values": [128, 256]},
        {"path": "economics.utilisation", "range": {"start": 0.6, "stop": 0.9, "count": 4}},
    ],
    "constraints": {"max_time_to_train_days": 60},
    "objectives": ["tco", "time_to_train"],
}


def test_sweep_paths_are_in_the_openapi_schema():
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    assert {"/api/sweeps/", "/api/sweeps/{id}/", "/api/sweeps/{id}/results/"} <= set(paths)


def test_create_watch_and_fetch_results(
    client, team_a, design_in, django_capture_on_commit_callbacks
):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        created = client.post(
            "/api/sweeps/",
            {"design": design.pk, "name": "api", "definition": DEFINITION},
            content_type="application/json",
        )
    assert created.status_code == 202, created.content
    sweep = client.get(f"/api/sweeps/{created.json()['id']}/").json()
    assert sweep["status"] == "done" and sweep["variants_done"] == sweep["total_variants"] == 8
    assert sweep["progress_pct"] == 100
    results = client.get(f"/api/sweeps/{sweep['id']}/results/").json()
    assert results["total"] == 8 and results["best"]["tco"]["metrics"]["tco_usd"] > 0
    assert client.get("/api/sweeps/").json()["count"] == 1


def test_results_before_done_are_a_conflict(client, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    created = client.post(  # no on-commit capture: the chunks are never sent
        "/api/sweeps/",
        {"design": design.pk, "definition": DEFINITION},
        content_type="application/json",
    ).json()
    assert client.get(f"/api/sweeps/{created['id']}/results/").status_code == 409
    cancelled = client.post(f"/api/sweeps/{created['id']}/cancel/").json()
    assert cancelled["status"] == "cancelled"


@pytest.mark.parametrize(
    "definition, field",
    [
        ({"axes": []}, "definition.axes"),
        ({"axes": [{"path": "compute.gpu_count"}]}, "definition.axes.0"),
        ({"axes": [{"path": "compute.gpu_count", "values": [-8]}]}, "definition.axes.0.values.0"),
        (
            {"axes": [{"path": "compute.gpu_count", "values": [128]}], "objectives": ["speed"]},
            "definition.objectives.0",
        ),
    ],
)
def test_a_bad_definition_names_the_field(client, team_a, design_in, definition, field):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    response = client.post(
        "/api/sweeps/",
        {"design": design.pk, "definition": definition},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert field in response.json(), response.json()
    assert not Sweep.objects.exists()


def test_other_teams_and_viewers(client, team_a, team_b, make_member, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    bob, _ = team_b
    client.force_login(bob)
    body = {"design": design.pk, "definition": DEFINITION}
    assert client.post("/api/sweeps/", body, content_type="application/json").status_code == 404
    viewer, _ = make_member("vera", "Alpha", role="viewer")
    client.force_login(viewer)
    assert client.post("/api/sweeps/", body, content_type="application/json").status_code == 403
    assert not Sweep.objects.exists()
