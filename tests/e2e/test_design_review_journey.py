"""A new user's whole journey in a real browser: build a design from scratch in the editor,
make a mistake and see the field error, save, evaluate and watch the run, edit and read the
revision diff, compare two designs. Screenshots at 1440x900 go to artifacts/screenshots/."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REQUIRED_FIELDS = {
    "#f-workload-layers": "32",
    "#f-workload-hidden-size": "4096",
    "#f-workload-attention-heads": "32",
    "#f-workload-kv-heads": "8",
    "#f-workload-ffn-hidden-size": "14336",
    "#f-workload-vocab-size": "128256",
    "#f-workload-sequence-length": "8192",
    "#f-compute-gpu-sku": "h100-sxm-80gb",
    "#f-compute-gpu-count": "64",
}


def _login(page, base: str) -> None:
    page.goto(f"{base}/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def _evaluate_and_wait(page) -> None:
    page.click("#evaluate")
    page.wait_for_url("**/runs/*/")
    page.wait_for_selector('[data-status="done"]', timeout=60_000)
    page.wait_for_selector(".chart .main-svg", timeout=20_000)


def test_design_review_journey(live_server, page, team_a, celery_worker_process):
    base = live_server.url
    _login(page, base)
    page.fill("#id_name", "Review 2027")
    page.click("#project-create button[type=submit]")
    page.wait_for_url("**/projects/*/")
    project_url = page.url
    screenshot(page, "project")

    # From scratch, through the editor.
    page.fill("#id_blank-name", "Scratch 8B")
    page.click("#design-blank button[type=submit]")
    page.wait_for_url("**/edit/")
    for selector, value in REQUIRED_FIELDS.items():
        section = selector.split("-")[1]  # "#f-compute-gpu-count" -> the Compute tab
        page.click(f"#nav-{section}")
        page.fill(selector, value)

    # A mistake: 60 GPUs is not a whole number of 8-GPU nodes. The engine's message appears
    # next to the field while typing, without a page load.
    page.fill("#f-compute-gpu-count", "60")
    expect(page.locator("#err-f-compute-gpu-count")).to_contain_text("multiple of", timeout=10_000)
    screenshot(page, "editor-field-error")

    # The draft survives a reload.
    page.reload()
    page.click("#nav-compute")
    assert page.input_value("#f-compute-gpu-count") == "60"
    assert page.locator("#draft-banner").is_visible()

    page.fill("#f-compute-gpu-count", "64")
    page.wait_for_selector("#quick-memory", timeout=10_000)
    page.fill("#id_message", "first cut")
    page.click("#save-revision")
    page.wait_for_url(re.compile(r".*/designs/\d+/$"))
    design_url = page.url
    _evaluate_and_wait(page)
    screenshot(page, "run-scratch")

    # Edit: double the GPUs and read the diff.
    page.goto(design_url + "edit/#section-compute")
    page.fill("#f-compute-gpu-count", "128")
    page.fill("#id_message", "double the GPUs")
    page.click("#save-revision")
    page.wait_for_url(design_url)
    page.click("#diff-latest")
    page.wait_for_selector("#spec-diff")
    row = page.locator("#spec-diff tr", has_text="compute.gpu_count")
    assert "64" in row.inner_text() and "128" in row.inner_text()
    screenshot(page, "revision-diff")

    # A second design from an example, evaluated, then both compared.
    page.goto(project_url)
    page.select_option("#id_example", "h100-256-onprem-starter")
    page.fill("#design-from-example #id_name", "Starter")
    page.click("#design-from-example button[type=submit]")
    page.wait_for_url("**/designs/*/")
    _evaluate_and_wait(page)
    page.goto(design_url)
    _evaluate_and_wait(page)

    page.goto(project_url)
    for box in page.locator("input[name=design]").all():
        box.check()
    page.click("#compare-selected")
    page.wait_for_selector("#comparison")
    assert page.locator("#comparison td.best").count() >= 1
    assert page.locator("#field-diff tr", has_text="compute.gpu_count").count() == 1
    page.wait_for_selector("#chart-scaling .main-svg", timeout=20_000)
    page.wait_for_selector(".chart .main-svg", timeout=20_000)
    screenshot(page, "compare")
    assert page.console_errors == []
