"""The revision diff page's line-by-line cost change renders in Chromium with no console error;
a 1440x900 screenshot is kept for review."""

import pytest

from studio.designs import services as design_services
from studio.runs import services as run_services
from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _evaluate(actor, revision):
    run = run_services.run_enqueue(actor=actor, revision=revision, dispatch=False)
    return run_services.run_execute(run_id=run.pk)


def test_cost_change_of_an_ndr_to_xdr_revision(live_server, page, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    _evaluate(alice, design.latest_revision)
    spec = dict(design.latest_revision.spec)
    spec["fabric"] = {
        **spec["fabric"],
        "technology": "infiniband-xdr",
        "switch_sku": "nvidia-q3400",
        "nic_sku": "cx8-xdr-800g",
        "nic_speed_gbps": 800,
    }
    revision = design_services.design_revision_create(
        actor=alice, design=design, spec=spec, message="XDR fabric"
    )
    _evaluate(alice, revision)
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")
    response = page.goto(f"{base}/designs/{design.pk}/diff/?from=1&to=2")
    assert response.status == 200
    table = page.locator("#cost-diff-capex")
    assert table.locator("tr.cost-added").count() > 0
    assert table.locator("tr.cost-removed").count() > 0
    assert "Q3400" in table.inner_text()
    page.evaluate("document.querySelector('#cost-diff-capex').scrollIntoView()")
    screenshot(page, "design-diff-cost")
    page.evaluate("document.querySelector('#cost-diff-capex tfoot').scrollIntoView()")
    screenshot(page, "design-diff-cost-total")
    assert page.console_errors == []


def test_capex_card_shows_completeness(live_server, page, team_a, design_in):
    """An XDR design: the capex card gives the share priced by value and the allowance lines;
    the IT power card names the kW of network gear that are power allowances."""
    alice, alpha = team_a
    design = design_in(alice, alpha)
    spec = dict(design.latest_revision.spec)
    spec["fabric"] = {
        **spec["fabric"],
        "technology": "infiniband-xdr",
        "switch_sku": "nvidia-q3400",
        "nic_sku": "cx8-xdr-800g",
        "nic_speed_gbps": 800,
    }
    revision = design_services.design_revision_create(
        actor=alice, design=design, spec=spec, message="XDR fabric"
    )
    run = _evaluate(alice, revision)
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")
    assert page.goto(f"{base}/runs/{run.pk}/").status == 200
    assert "priced by value" in page.content()
    assert "power allowance" in page.content()
    page.evaluate("document.querySelector('#facility-key-figures').scrollIntoView()")
    screenshot(page, "results-it-power-allowance")
    page.evaluate("document.querySelector('#cost-key-figures').scrollIntoView()")
    screenshot(page, "results-capex-completeness")
    assert page.console_errors == []
