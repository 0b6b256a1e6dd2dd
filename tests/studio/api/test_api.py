"""REST API: OpenAPI generates, bad specs give field errors (400), never a 500 or half a save."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from studio.designs.models import Design
from tests.conftest import example_spec

pytestmark = pytest.mark.django_db


def _project(client, team) -> dict:
    return client.post("/api/projects/", {"team": team.pk, "name": "P"}).json()


def _post_design(client, project: dict, name: str, spec: dict):
    return client.post(
        "/api/designs/",
        {"project": project["id"], "name": name, "spec": spec},
        content_type="application/json",
    )


def _evaluated_run(client, design: dict, capture) -> dict:
    """Evaluate through the API, run the queued work, and read the run back."""
    with capture(execute=True):
        run = client.post(f"/api/designs/{design['id']}/evaluate/").json()
    return client.get(f"/api/runs/{run['id']}/").json()


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
    spec = example_spec()
    spec["compute"]["gpu_count"] = -8
    response = _post_design(client, _project(client, alpha), "Bad", spec)
    assert response.status_code == 400
    assert "spec.compute.gpu_count" in response.json()
    assert not Design.objects.exists()


def test_create_and_evaluate_through_the_api(client, team_a, django_capture_on_commit_callbacks):
    alice, alpha = team_a
    client.force_login(alice)
    design = _post_design(client, _project(client, alpha), "Good", example_spec()).json()
    run = _evaluated_run(client, design, django_capture_on_commit_callbacks)
    assert run["status"] == "done"
    assert run["results"]["performance"]["memory"]["total_gib"] > 0


def test_project_in_a_team_you_do_not_belong_to_is_refused(client, team_a, team_b):
    client.force_login(team_a[0])
    response = client.post("/api/projects/", {"team": team_b[1].pk, "name": "Sneaky"})
    missing = client.post("/api/projects/", {"team": team_b[1].pk + 1000, "name": "Sneaky"})
    # Another team's id is answered exactly like a missing one: no existence oracle.
    assert response.status_code == missing.status_code == 404
    assert response.json() == missing.json()


def test_push_a_variant_as_json_and_as_csv_then_diff(client, team_a, design_in):
    import csv
    import io

    from studio.designs.editor.codec import form_to_rows, spec_to_form

    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    spec = design.latest_revision.spec
    variant = {**spec, "economics": {**spec["economics"], "utilisation": 0.6}}
    response = client.post(
        f"/api/designs/{design.pk}/revisions/",
        {"spec": variant, "message": "lower utilisation"},
        content_type="application/json",
    )
    assert response.status_code == 201 and response.json()["number"] == 2
    rows = dict(form_to_rows(spec_to_form(variant)))
    rows["economics.discount_rate"] = "0.1"
    out = io.StringIO()
    csv.writer(out).writerows([("path", "value"), *rows.items()])
    upload = io.BytesIO(out.getvalue().encode())
    upload.name = "variant.csv"
    response = client.post(f"/api/designs/{design.pk}/revisions/upload/", {"file": upload})
    assert response.status_code == 201, response.content
    diff = client.get(f"/api/designs/{design.pk}/diff/").json()
    assert diff["from"] == 2 and diff["to"] == 3
    assert [c["path"] for c in diff["changes"]] == ["economics.discount_rate"]
    listed = client.get(f"/api/designs/{design.pk}/revisions/").json()
    assert listed["count"] == 3  # paginated like every list, as the OpenAPI description says
    assert [(r["number"], r["label"]) for r in listed["results"]] == [
        (3, "r3"),
        (2, "r2"),
        (1, "r1"),
    ]
    assert all("spec" not in r for r in listed["results"])  # the spec is behind the detail
    detail = client.get(f"/api/designs/{design.pk}/revisions/3/").json()
    assert detail["number"] == 3 and detail["spec"]["economics"]["discount_rate"] == 0.1


def test_a_bad_variant_is_refused_with_the_field_and_saves_nothing(client, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    spec = design.latest_revision.spec
    bad = {**spec, "economics": {**spec["economics"], "utilisation": 7}}
    response = client.post(
        f"/api/designs/{design.pk}/revisions/", {"spec": bad}, content_type="application/json"
    )
    assert response.status_code == 400 and "spec.economics.utilisation" in response.json()
    assert design.revisions.count() == 1
    assert client.get(f"/api/designs/{design.pk}/diff/?from=9").status_code == 400


def test_packed_lora_fine_tuning_through_the_api(
    client, team_a, django_capture_on_commit_callbacks
):
    """A document longer than its sequence is a 400 naming the field and saves nothing; a
    packed LoRA design round-trips and its run says which layers got adapters."""
    alice, alpha = team_a
    client.force_login(alice)
    project = _project(client, alpha)
    spec = example_spec()
    spec["workload"]["packed_document_tokens"] = spec["workload"]["sequence_length"] + 1
    bad = _post_design(client, project, "Bad", spec)
    assert bad.status_code == 400
    assert "spec.workload.packed_document_tokens" in bad.json()
    assert not Design.objects.exists()
    spec["workload"]["packed_document_tokens"] = 200
    spec["workload"]["fine_tuning"] = {"mode": "lora", "lora_rank": 32, "lora_targets": "qkv"}
    design = _post_design(client, project, "SFT", spec).json()
    saved = client.get(f"/api/designs/{design['id']}/revisions/1/").json()
    workload = saved["spec"]["workload"]
    assert workload["packed_document_tokens"] == 200
    assert workload["fine_tuning"]["lora_targets"] == "qkv"
    run = _evaluated_run(client, design, django_capture_on_commit_callbacks)
    assert run["status"] == "done"
    warnings = run["results"]["performance"]["warnings"]
    assert any("adapters on the QKV projection" in w for w in warnings)
