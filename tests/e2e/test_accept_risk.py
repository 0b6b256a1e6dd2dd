"""An editor accepts a failing security finding in the browser; the design is re-evaluated
and the finding shows as an accepted risk with its owner."""

import pytest

from studio.runs import services as run_services
from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_editor_accepts_a_risk_from_the_results_page(
    live_server, page, team_a, design_in, celery_worker_process
):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug="dgx-h100-superpod-4su")
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run_services.run_execute(run_id=run.pk)
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice")
    page.click("button[type=submit]")
    page.goto(f"{base}/runs/{run.pk}/#results-security")
    row = page.locator("#security-findings tr.status-fail").first
    check_id = row.locator("code").first.inner_text()
    row.locator("details.accept summary").click()
    row.locator("textarea[name=reason]").fill(
        "Single-tenant InfiniBand fabric inside a locked cage"
    )
    row.locator("input[name=owner]").fill("Head of infrastructure security")
    row.locator("input[name=expires]").fill("2099-12-31")
    row.locator("button[type=submit]").click()
    page.wait_for_selector('[data-status="done"]', timeout=60_000)
    accepted = page.locator("#security-findings tr", has_text=check_id)
    assert "accepted by Head of infrastructure security" in accepted.inner_text()
    screenshot(page, "accepted-risk")
    assert page.console_errors == []
