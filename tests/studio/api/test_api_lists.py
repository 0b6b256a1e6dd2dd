"""API lists are lean: no results payload, bounded size, a constant number of queries."""

import json

import pytest

from studio.runs.models import EngineRun, RunStatus

pytestmark = pytest.mark.django_db

# A run in a list is a dozen small fields; with its results it was ~270 kB.
MAX_BYTES_PER_LISTED_RUN = 2_000


def _copies(run: EngineRun, count: int) -> None:
    """`count` more finished runs of the same revision with the same (large) results."""
    EngineRun.objects.bulk_create(
        EngineRun(
            revision=run.revision,
            spec_hash=run.spec_hash,
            engine_version=run.engine_version,
            status=RunStatus.DONE,
            results=run.results,
            progress=run.progress,
            finished_at=run.finished_at,
        )
        for _ in range(count)
    )


def test_run_list_has_no_results_and_stays_small(client, evaluated):
    design, run = evaluated
    assert len(json.dumps(run.results)) > 10_000  # what the list must not carry
    _copies(run, 9)
    client.force_login(design.project.team.memberships.first().user)

    response = client.get("/api/runs/")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 10 and len(body["results"]) == 10  # paginated envelope
    assert all("results" not in item for item in body["results"])
    assert {item["status"] for item in body["results"]} == {"done"}
    assert len(response.content) < 10 * MAX_BYTES_PER_LISTED_RUN


def test_run_detail_keeps_the_results(client, evaluated):
    design, run = evaluated
    client.force_login(design.project.team.memberships.first().user)
    detail = client.get(f"/api/runs/{run.pk}/").json()
    assert detail["results"] == run.results


def test_run_list_queries_do_not_grow_with_the_runs(
    client, evaluated, django_assert_max_num_queries
):
    design, run = evaluated
    client.force_login(design.project.team.memberships.first().user)
    client.get("/api/runs/")  # warm the session
    _copies(run, 30)
    with django_assert_max_num_queries(8):
        assert client.get("/api/runs/").json()["count"] == 31


def test_design_list_latest_revision_in_one_query(
    client, team_a, design_in, django_assert_max_num_queries
):
    from studio.designs import services

    alice, alpha = team_a
    designs = [design_in(alice, alpha, name=f"D{i}") for i in range(1)]
    project = designs[0].project
    for i in range(1, 6):
        designs.append(
            services.design_create(
                actor=alice,
                project=project,
                name=f"D{i}",
                spec=designs[0].latest_revision.spec,
                message="copy",
            )
        )
    spec = designs[0].latest_revision.spec
    variant = {**spec, "economics": {**spec["economics"], "utilisation": 0.61}}
    services.design_revision_create(actor=alice, design=designs[0], spec=variant, message="v2")
    client.force_login(alice)
    client.get("/api/designs/")  # warm the session
    with django_assert_max_num_queries(8):
        listed = client.get("/api/designs/").json()["results"]
    # The revision number users see (r2), not a database id.
    assert {d["id"]: (d["latest_revision"], d["latest_revision_label"]) for d in listed} == {
        d.pk: (d.latest_revision.number, f"r{d.latest_revision.number}") for d in designs
    }
    assert listed[0]["latest_revision"] == 2


def test_lists_are_paginated_by_default(client, evaluated):
    design, run = evaluated
    _copies(run, 3)
    client.force_login(design.project.team.memberships.first().user)
    page = client.get("/api/runs/?limit=2").json()
    assert page["count"] == 4 and len(page["results"]) == 2 and page["next"]
    for url in ("/api/projects/", "/api/designs/", "/api/catalog-entries/"):
        body = client.get(url).json()
        assert set(body) >= {"count", "next", "previous", "results"}, url


def test_a_hundred_runs_with_real_results_list_in_under_200_kb(client, evaluated):
    """Issue 17: /api/runs/ for 17 runs was 4.6 MB; 100 runs must stay under 200 kB."""
    design, run = evaluated
    _copies(run, 99)
    client.force_login(design.project.team.memberships.first().user)

    response = client.get("/api/runs/")

    body = response.json()
    assert body["count"] == 100 and len(body["results"]) == 100
    assert all(item["headline"]["tco_usd"] > 0 for item in body["results"])  # summaries, not empty
    print(f"/api/runs/ with 100 runs: {len(response.content):,} bytes")
    assert len(response.content) < 200_000
