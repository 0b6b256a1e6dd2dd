"""Accepting a failing security finding re-evaluates the design; a bad acceptance is refused."""

import pytest

from studio.runs.models import EngineRun

pytestmark = pytest.mark.django_db


def test_results_page_has_a_section_per_engine_and_accepting_a_risk_rescores(
    client, team_a, design_in, django_capture_on_commit_callbacks
):
    from studio.designs.models import AcceptedRisk
    from studio.runs import services

    alice, alpha = team_a
    design = design_in(alice, alpha, slug="dgx-h100-superpod-4su")
    run = services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run = services.run_execute(run_id=run.pk)
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="results-performance"' in page and 'id="results-security"' in page
    assert 'data-figure-id="security-frameworks"' in page
    failing = next(c for c in run.results["security"]["checks"] if c["status"] == "FAIL")
    before = run.results["security"]["summary"]["accepted_risk"]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/designs/{design.pk}/risks/accept/",
            {
                "check_id": failing["id"],
                "reason": "InfiniBand has no inline encryption; the fabric is single-tenant",
                "owner": "CISO office",
                "expires": "2099-01-01",
                "run": run.pk,
            },
        )
    rerun = EngineRun.objects.get(pk=response.url.rstrip("/").split("/")[-1])
    assert rerun.cached_from is None
    assert rerun.results["security"]["summary"]["accepted_risk"] == before + 1
    assert AcceptedRisk.objects.get(check_id=failing["id"]).owner == "CISO office"


def test_accepting_a_risk_without_reason_or_with_a_past_expiry_is_refused(
    client, team_a, design_in
):
    from studio.designs.models import AcceptedRisk

    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    client.post(
        f"/designs/{design.pk}/risks/accept/",
        {"check_id": "CS-NET-001", "reason": "", "owner": "", "expires": "2001-01-01"},
    )
    assert not AcceptedRisk.objects.exists()
