"""REST API: OpenAPI generates, bad specs give field errors (400), never a 500 or half a save."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from studio.designs.models import Design
from tests.conftest import example_spec

pytestmark = pytest.mark.django_db


def test_openapi_schema_generates_without_warnings():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    assert "/api/designs/{id}/evaluate/" in schema["paths"]
    assert "/api/spec-schema/" in schema["paths"]


def test_spec_schema_endpoint_serves_the_engine_schema(client, team_a):
    from models_engine.spec import design_json_schema

    client.force_login(team_a[0])
    assert client.get("/api/spec-schema/").json() == design_json_schema()


def test_create_design_with_a_bad_field_names_it(client, team_a):
    alice, alpha = team_a
    client.force_login(alice)
    project = client.post("/api/projects/", {"team": alpha.pk, "name": "P"}).json()
    spec = example_spec()
    spec["compute"]["gpu_count"] = -8
    response = client.post(
        "/api/designs/",
        {"project": project["id"], "name": "Bad", "spec": spec},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "spec.compute.gpu_count" in response.json()
    assert not Design.objects.exists()


def test_create_and_evaluate_through_the_api(client, team_a, django_capture_on_commit_callbacks):
    alice, alpha = team_a
    client.force_login(alice)
    project = client.post("/api/projects/", {"team": alpha.pk, "name": "P"}).json()
    design = client.post(
        "/api/designs/",
        {"project": project["id"], "name": "Good", "spec": example_spec()},
        content_type="application/json",
    ).json()
    with django_capture_on_commit_callbacks(execute=True):
        run = client.post(f"/api/designs/{design['id']}/evaluate/").json()
    run = client.get(f"/api/runs/{run['id']}/").json()
    assert run["status"] == "done"
    assert run["results"]["performance"]["memory"]["total_gib"] > 0


def test_project_in_a_team_you_do_not_belong_to_is_refused(client, team_a, team_b):
    client.force_login(team_a[0])
    response = client.post("/api/projects/", {"team": team_b[1].pk, "name": "Sneaky"})
    assert response.status_code == 403
