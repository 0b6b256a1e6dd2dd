"""Log in, create a project, a design from an example, evaluate it, see the chart."""

import json

import pytest
from django.contrib.staticfiles import finders

from studio.designs.models import DesignRevision
from studio.runs.models import EngineRun, RunStatus

pytestmark = pytest.mark.django_db


def test_slice_through_the_html_pages(client, team_a, django_capture_on_commit_callbacks):
    _alice, alpha = team_a
    assert client.login(username="alice", password="pw-alice")
    response = client.post("/", {"team": alpha.pk, "name": "Cluster 2027", "description": ""})
    assert response.status_code == 302
    project_url = response.url
    response = client.post(
        f"{project_url}designs/from-example/",
        {"example": "h100-256-onprem-starter", "name": "Starter"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    design_url = response.url
    assert "Evaluate" in client.get(design_url).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(design_url + "evaluate/")
    assert response.status_code == 302
    run = EngineRun.objects.get()
    assert run.status == RunStatus.DONE, run.error  # eager in unit tests
    page = client.get(response.url).content.decode()
    assert "vendor/plotly.min.js" in page
    assert 'id="figure-memory-per-gpu"' in page
    figure = json.loads(
        page.split('id="figure-memory-per-gpu" type="application/json">')[1].split("</script>")[0]
    )
    assert figure["data"] and figure["layout"]["yaxis"]["title"]["text"].endswith("(GiB)")
    assert sum(bar["y"][0] for bar in figure["data"]) == pytest.approx(
        run.results["performance"]["memory"]["total_gib"], rel=1e-9
    )


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


def test_revisions_are_immutable(team_a, design_in):
    alice, alpha = team_a
    revision = design_in(alice, alpha).latest_revision
    revision.message = "rewrite history"
    with pytest.raises(ValueError):
        revision.save()
    assert DesignRevision.objects.get(pk=revision.pk).message == "test"


def test_plotly_js_is_served_from_the_plotly_package():
    import plotly

    found = finders.find("vendor/plotly.min.js")
    assert found and found.startswith(str(__import__("pathlib").Path(plotly.__file__).parent))


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


def test_audit_log_records_who_changed_what(client, team_a, design_in):
    from studio.core.models import AuditEvent

    alice, alpha = team_a
    client.force_login(alice)
    design = design_in(alice, alpha)
    actions = set(
        AuditEvent.objects.filter(project=design.project).values_list("action", flat=True)
    )
    assert {"project.create", "design.create", "revision.create"} <= actions
    page = client.get(f"/projects/{design.project.pk}/history/").content.decode()
    assert "revision.create" in page and "alice" in page


def test_failed_login_is_audited(client, team_a):
    from studio.core.models import AuditEvent

    client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    event = AuditEvent.objects.get(action="auth.login_failed")
    assert event.data == {"username": "alice"} and "wrong" not in str(event.data)


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
    assert 'id="figure-security-frameworks"' in page
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


def test_owner_manages_members_and_the_last_owner_stays(client, team_a, make_member):
    from studio.accounts.models import Membership

    alice, alpha = team_a
    bob, _ = make_member("bob2", "Elsewhere")
    client.force_login(alice)
    client.post(f"/teams/{alpha.pk}/", {"username": "bob2", "role": "editor", "action": "set"})
    assert Membership.objects.get(team=alpha, user=bob).role == "editor"
    client.post(f"/teams/{alpha.pk}/", {"username": "alice", "role": "viewer", "action": "set"})
    assert Membership.objects.get(team=alpha, user=alice).role == "owner"
    client.post(f"/teams/{alpha.pk}/", {"username": "bob2", "action": "remove"})
    assert not Membership.objects.filter(team=alpha, user=bob).exists()
    client.force_login(bob)
    assert client.get(f"/teams/{alpha.pk}/").status_code == 404


def _age_results(run: EngineRun, results: dict) -> None:
    """Store `results` as an older engine version would have: no result_schema_version and
    the old single-site shapes (`fabric.scale_out`, `facility.power`)."""
    old = {key: value for key, value in results.items() if key != "result_schema_version"}
    old["fabric"] = {"scale_out": {"tiers": 2}, "bom": []}
    old["facility"] = {"power": {"it_kw": {"total": 1.0}}}
    EngineRun.objects.filter(pk=run.pk).update(results=old)


def test_results_of_an_older_engine_version_ask_for_a_re_run(
    client, team_a, design_in, django_capture_on_commit_callbacks
):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/designs/{design.pk}/evaluate/")
    run = EngineRun.objects.get()
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
    assert bom.splitlines()[0].startswith("site,")
