"""In the browser: from a headline number's evidence grade to the validation panel filtered to the
references it was computed from; the panel's charts draw under the production CSP."""

import pytest

from studio.runs import services as run_services
from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_open_the_validation_panel_from_a_headline_number(live_server, page, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run_services.run_execute(run_id=run.pk)
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")
    page.goto(f"{base}/runs/{run.pk}/")
    grade = page.locator('.headline-card[data-metric="step_time_s"] a.grade')
    assert grade.inner_text().startswith("evidence ")
    screenshot(page, "results-evidence-grades")
    grade.click()
    page.wait_for_selector("#nearest-note")
    page.wait_for_selector("#chart-validation-scatter .main-svg")
    rows = page.locator("#validation-references tbody tr").count()
    assert 1 <= rows <= 5
    screenshot(page, "validation-nearest")
    page.goto(f"{base}/validation/")
    page.wait_for_selector("#chart-validation-errors .main-svg")
    screenshot(page, "validation-panel")
    page.locator("#chart-validation-scatter").scroll_into_view_if_needed()
    screenshot(page, "validation-panel-charts")
    assert page.console_errors == []
