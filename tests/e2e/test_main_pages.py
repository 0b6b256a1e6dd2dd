"""Every main page renders in Chromium under the production CSP with no console error, and a
1440x900 screenshot of each is kept for review."""

import pytest

from studio.runs import services as run_services
from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_main_pages_render_without_errors(live_server, page, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug="dgx-h100-superpod-4su")
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run_services.run_execute(run_id=run.pk)
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    screenshot(page, "login")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")
    pages = {
        "projects": "/",
        "project": f"/projects/{design.project.pk}/",
        "design": f"/designs/{design.pk}/",
        "editor": f"/designs/{design.pk}/edit/",
        "results": f"/runs/{run.pk}/",
        "catalog": "/catalog/",
        "spec-reference": "/docs/spec/",
        "history": f"/projects/{design.project.pk}/history/",
        "tokens": "/account/tokens/",
        "api-docs": "/api/docs/",
    }
    for name, path in pages.items():
        response = page.goto(base + path)
        assert response.status == 200, (name, response.status)
        assert "script-src 'self'" in response.headers["content-security-policy"]
        if name == "results":
            page.wait_for_selector(".chart .main-svg")
        if name == "api-docs":
            page.wait_for_selector(".swagger-ui .info", timeout=15_000)
        screenshot(page, name)
    assert page.console_errors == []
