"""In the browser: from a headline number's evidence grade to the validation panel filtered to the
references it was computed from; the panel's charts draw under the production CSP."""

import pytest

from studio.reports import services as report_services
from studio.runs import services as run_services
from tests.e2e.conftest import log_in, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_open_the_validation_panel_from_a_headline_number(live_server, page, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run_services.run_execute(run_id=run.pk)
    report = report_services.report_create(
        actor=alice,
        project=design.project,
        title="Evidence check",
        summary="",
        designs=[design],
        dispatch=False,
    )
    base = live_server.url
    log_in(page, base)
    page.goto(f"{base}/runs/{run.pk}/")
    grade = page.locator('.headline-card[data-metric="step_time_s"] a.grade')
    assert grade.inner_text().startswith("evidence ")
    screenshot(page, "results-evidence-grades")
    grade.click()
    page.wait_for_selector("#nearest-note")
    page.wait_for_selector("#chart-validation-scatter-0 .main-svg")
    rows = page.locator("#validation-references tbody tr").count()
    assert 1 <= rows <= 5
    screenshot(page, "validation-nearest")
    page.goto(f"{base}/validation/")
    page.wait_for_selector("#chart-validation-errors .main-svg")
    # The 10-column reference table scrolls in its box; it pushed the page to 1,869 px wide.
    page_width = page.evaluate("document.documentElement.scrollWidth")
    assert page_width <= page.viewport_size["width"], page_width
    screenshot(page, "validation-panel")
    page.locator("#chart-validation-scatter-1").scroll_into_view_if_needed()
    screenshot(page, "validation-panel-charts")
    # The design page and the report carry the same grade as the results page.
    grade_text = page.goto(f"{base}/runs/{run.pk}/") and grade.inner_text()
    page.goto(f"{base}/designs/{design.pk}/")
    assert page.locator('.headline-card[data-metric="step_time_s"] a.grade').inner_text() == (
        grade_text
    )
    screenshot(page, "design-evidence-grades")
    page.goto(f"{base}/reports/{report.pk}/")
    page.locator("#headline-table").scroll_into_view_if_needed()
    assert grade_text.split()[-1] in page.locator("#headline-table tbody tr").first.inner_text()
    screenshot(page, "report-evidence-grades")
    assert page.console_errors == []
