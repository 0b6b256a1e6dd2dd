"""A new user sweeps a design in the browser: defines the axes, constraint and objectives,
watches the progress until it finishes, reads the Pareto chart (units on the axes, the variant
on hover), and saves the best variant as a new revision in one click."""

import pytest

from tests.e2e.conftest import ARTIFACTS, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_define_watch_read_and_save_a_sweep(
    live_server, page, team_a, design_in, celery_worker_process
):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice")
    page.click("button[type=submit]")
    page.goto(f"{base}/designs/{design.pk}/")
    page.click("#sweep-design")
    page.select_option("#id_axis_0_path", "compute.gpu_count")
    page.fill("#id_axis_0_values", "128, -8")  # a value the spec refuses: named, nothing saved
    page.click("#start-sweep")
    error = page.locator("#sweep-axes .errorlist").first
    assert "compute.gpu_count = -8" in error.inner_text()
    screenshot(page, "sweep-define-error")
    assert page.console_errors == [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    ]
    page.console_errors.clear()  # the 400 above was the point
    page.fill("#id_axis_0_values", "128, 256, 512")
    page.select_option("#id_axis_1_path", "facility.pue")
    page.fill("#id_axis_1_values", "1.2, 1.5")
    page.select_option("#id_axis_2_path", "economics.utilisation")
    page.fill("#id_axis_2_values", "0.5..0.95/10")
    page.select_option("#id_axis_3_path", "economics.price_overrides.power_usd_per_kwh")
    page.fill("#id_axis_3_values", "0.04..0.16/7")
    page.fill("#id_max_time_to_train_days", "30")
    screenshot(page, "sweep-define")
    page.click("#start-sweep")
    page.wait_for_selector("#sweep-status")
    page.wait_for_selector("#chart-sweep-pareto .main-svg", timeout=90_000)
    assert page.locator('[data-status="done"]').count() == 1
    assert page.locator("#feasible-count").inner_text().strip() != "0"
    x_title = page.locator("#chart-sweep-pareto .xtitle").text_content()
    y_title = page.locator("#chart-sweep-pareto .ytitle").text_content()
    assert "USD" in x_title and "days" in y_title
    page.locator("#chart-sweep-parallel .main-svg").first.wait_for()
    page.locator("#chart-sweep-sensitivity .main-svg").first.wait_for()
    # hover a front point: the tooltip names the variant and its inputs
    point = page.locator("#chart-sweep-pareto .scatterlayer .trace").last.locator("path.point")
    box = point.first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hover = page.locator("#chart-sweep-pareto .hoverlayer .hovertext").first
    hover.wait_for()
    assert "variant" in hover.text_content() and "compute.gpu_count" in hover.text_content()
    screenshot(page, "sweep-results")
    page.locator(".charts").screenshot(path=str(ARTIFACTS / "sweep-charts.png"))
    page.locator("#sweep-best").screenshot(path=str(ARTIFACTS / "sweep-best.png"))
    best_tco = page.locator("#sweep-best tbody tr").first
    assert "compute.gpu_count" in best_tco.inner_text()
    best_tco.locator("button.save-variant").click()
    page.wait_for_selector(".messages")
    assert "saved as revision 2" in page.locator(".messages").inner_text()
    screenshot(page, "sweep-saved-variant")
    assert page.console_errors == []
