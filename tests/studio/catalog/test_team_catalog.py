"""Team catalog entries (validated by the engine's models, used in the team's evaluations,
invisible to other teams) and negotiated prices."""

import pytest

from studio.catalog import services as catalog_services
from studio.catalog.models import TeamCatalogEntry
from studio.designs.models import Design
from studio.runs import services as run_services
from tests.conftest import example_spec, team_gpu_entry

pytestmark = pytest.mark.django_db


def _spec_with_gpu(gpu_id: str) -> dict:
    spec = example_spec()
    spec["compute"]["gpu_sku"] = gpu_id
    return spec


def test_team_entry_is_validated_stored_and_used_by_the_engine(client, team_a, design_in):
    alice, alpha = team_a
    client.force_login(alice)
    response = client.post(
        "/api/catalog-entries/",
        {"team": alpha.pk, "kind": "gpus", "data": team_gpu_entry()},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    project = client.post("/api/projects/", {"team": alpha.pk, "name": "P"}).json()
    response = client.post(
        "/api/designs/",
        {
            "project": project["id"],
            "name": "Own GPU",
            "spec": _spec_with_gpu("acme-h100-negotiated"),
        },
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    design = Design.objects.get(name="Own GPU")
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run = run_services.run_execute(run_id=run.pk)
    assert run.status == "done", run.error
    assert run.results["gpu"]["id"] == "acme-h100-negotiated"


def test_entry_without_a_source_gets_field_errors(client, team_a):
    alice, alpha = team_a
    client.force_login(alice)
    bad = {**team_gpu_entry(), "sources": [], "tdp_w": -5}
    response = client.post(
        "/api/catalog-entries/",
        {"team": alpha.pk, "kind": "gpus", "data": bad},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert {"data.sources", "data.tdp_w"} <= set(response.json())
    assert not TeamCatalogEntry.objects.exists()


def test_another_teams_entry_cannot_be_referenced(client, team_a, team_b):
    bob, bravo = team_b
    catalog_services.team_entry_create(
        actor=bob, team=bravo, kind="gpus", data=team_gpu_entry("bravo-gpu")
    )
    alice, alpha = team_a
    client.force_login(alice)
    project = client.post("/api/projects/", {"team": alpha.pk, "name": "P"}).json()
    response = client.post(
        "/api/designs/",
        {"project": project["id"], "name": "Borrowed", "spec": _spec_with_gpu("bravo-gpu")},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "spec.compute.gpu_sku" in response.json()
    assert client.get(f"/api/catalog/?team={bravo.pk}").status_code == 404
    assert "bravo-gpu" not in client.get("/catalog/").content.decode()


def test_changing_the_team_catalog_invalidates_the_cached_result(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    first = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run_services.run_execute(run_id=first.pk)
    catalog_services.team_entry_create(actor=alice, team=alpha, kind="gpus", data=team_gpu_entry())
    second = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    assert second.cached_from is None and second.status == "queued"


def test_viewer_cannot_add_entries(client, make_member, team_a):
    viewer, alpha = make_member("vera", "Alpha", role="viewer")
    client.force_login(viewer)
    response = client.post(
        "/api/catalog-entries/",
        {"team": alpha.pk, "kind": "gpus", "data": team_gpu_entry()},
        content_type="application/json",
    )
    assert response.status_code == 403
    response = client.post("/catalog/", {"team": alpha.pk, "kind": "gpus", "data": "{}"})
    assert response.status_code == 403


def test_catalog_page_shows_sources_and_the_form_reports_errors(client, team_a):
    alice, alpha = team_a
    client.force_login(alice)
    page = client.get("/catalog/").content.decode()
    assert "h100-sxm-80gb" in page and "BF16 dense TFLOP/s" in page and "[S15]" in page
    page = client.post("/catalog/", {"team": alpha.pk, "kind": "gpus", "data": "{oops"})
    assert "not valid JSON" in page.content.decode()


def test_a_team_negotiated_price_replaces_the_catalog_price_in_its_runs(
    client, team_a, team_b, design_in
):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug="dgx-h100-superpod-4su")
    before = run_services.run_execute(
        run_id=run_services.run_enqueue(
            actor=alice, revision=design.latest_revision, dispatch=False
        ).pk
    )
    client.force_login(alice)
    response = client.post(
        "/catalog/",
        {
            "team": alpha.pk,
            "form": "price",
            "catalog_id": "nvidia-qm9700",
            "unit_price_usd": "30000",
            "quote": "ACME NDR quote 4711",
            "quote_date": "2026-10",
        },
    )
    assert response.status_code == 302
    after = run_services.run_execute(
        run_id=run_services.run_enqueue(
            actor=alice, revision=design.latest_revision, dispatch=False
        ).pk
    )
    assert after.cached_from is None  # the team's catalog changed
    assert after.results["headline"]["capex_usd"] < before.results["headline"]["capex_usd"]
    line = next(
        item
        for item in after.results["cost"]["capex"]["lines"]
        if item.get("catalog_id") == "nvidia-qm9700"
    )
    assert line["unit_price_usd"] == 30000 and "ACME NDR quote 4711" in line["source_title"]
    # Another team still sees the list price.
    bob, bravo = team_b
    other = design_in(bob, bravo, slug="dgx-h100-superpod-4su")
    theirs = run_services.run_execute(
        run_id=run_services.run_enqueue(
            actor=bob, revision=other.latest_revision, dispatch=False
        ).pk
    )
    assert theirs.results["headline"]["capex_usd"] == before.results["headline"]["capex_usd"]


def test_a_negotiated_price_needs_a_known_id_a_quote_and_a_date(client, team_a):
    alice, alpha = team_a
    client.force_login(alice)
    page = client.post(
        "/catalog/",
        {
            "team": alpha.pk,
            "form": "price",
            "catalog_id": "nope",
            "unit_price_usd": "-1",
            "quote": "",
            "quote_date": "soon",
        },
    )
    body = page.content.decode()
    for field in ("catalog_id", "quote", "quote_date", "unit_price_usd"):
        assert f"<code>{field}</code>" in body
    assert not TeamCatalogEntry.objects.exists()
