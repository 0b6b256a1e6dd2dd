"""The physical plan in the browser: the rack elevation renders (one rack per column, devices
at their U, a legend), the row selector switches rows, and the downloads answer."""

import pytest

from studio.runs import services as run_services
from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_rack_elevation_renders_and_rows_switch(live_server, page, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug="dgx-h100-superpod-4su")
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run = run_services.run_execute(run_id=run.pk)
    site = run.results["physical"]["sites"][0]
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")
    assert page.goto(f"{base}/runs/{run.pk}/").status == 200
    elevation = page.locator(f"#rack-elevation-{site['site_id']}")
    elevation.scroll_into_view_if_needed()
    first_row = elevation.locator(".elevation-row:not([hidden])")
    racks_in_row_1 = sum(r["count"] for r in site["floor"] if r["row"] == 1)
    assert first_row.locator(".rack-column").count() == racks_in_row_1
    # A DGX H100 is 8U: its box is drawn 8 units tall, in the rack frame.
    node = first_row.locator(".rack-device.el-node").first
    assert node.bounding_box()["height"] == pytest.approx(8 * 9, abs=1)
    assert elevation.locator(".elevation-legend li").count() >= 5
    screenshot(page, "physical-elevation")
    if site["rows"] > 1:
        elevation.locator(".elevation-row-select").select_option("2")
        shown = elevation.locator(".elevation-row:not([hidden])")
        assert shown.get_attribute("data-row") == "2"
        assert shown.locator(".rack-column").count() == sum(
            r["count"] for r in site["floor"] if r["row"] == 2
        )
        # The storage rack (six 2U DDN appliances) stands with the network racks.
        storage = elevation.locator(".elevation-row:not([hidden]) .rack-device.el-storage")
        assert storage.count() == 6
        screenshot(page, "physical-elevation-row-2")
    cables = page.locator(f"#physical-cables-{site['site_id']} tbody tr")
    assert cables.count() == len(site["cables"])
    csv = page.request.get(f"{base}/runs/{run.pk}/cable-schedule.csv")
    assert csv.status == 200
    assert len(csv.text().strip().splitlines()) == site["cable_links"] + 1
    dcim = page.request.get(f"{base}/runs/{run.pk}/dcim.zip")
    assert dcim.status == 200 and dcim.body()[:2] == b"PK"
    assert elevation.locator(".elevation-row:visible").count() == 1  # one row at a time
    assert page.console_errors == []
