"""The first vertical slice as a user does it, in a real browser with a real Celery worker."""

import pytest

from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_login_create_design_evaluate_and_read_the_chart(
    live_server, page, team_a, celery_worker_process
):
    page.goto(f"{live_server.url}/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")

    page.fill("#id_name", "Training cluster 2027")
    page.click("#project-create button[type=submit]")
    page.wait_for_url("**/projects/*/")

    page.select_option("#id_example", "h100-256-onprem-starter")
    page.fill("#design-from-example #id_name", "Starter H100")
    page.click("#design-from-example button[type=submit]")
    page.wait_for_url("**/designs/*/")
    screenshot(page, "design-detail")

    page.click("#evaluate")
    page.wait_for_url("**/runs/*/")
    page.wait_for_selector('[data-status="done"]', timeout=60_000)
    page.wait_for_selector("#chart-memory-per-gpu .main-svg", timeout=20_000)
    bars = page.locator("#chart-memory-per-gpu .barlayer .point")
    assert bars.count() >= 3
    title = page.locator("#chart-memory-per-gpu .gtitle").text_content()
    assert "Memory per GPU" in title
    assert page.locator("#chart-memory-per-gpu .ytitle").text_content() == "memory per GPU (GiB)"
    screenshot(page, "run-results")
    assert [e for e in page.console_errors if "Content Security Policy" in e] == []
    assert page.console_errors == []
