"""Tried as a new user: a capacity planner downloads a design's spec as XLSX, changes the GPU
count in a spreadsheet, imports the sheet on the design page, and sees the new revision's diff
and results without touching JSON. A mistyped value comes back naming its row and column."""

import io
from pathlib import Path

import pytest
from openpyxl import load_workbook

from studio.runs import services as run_services
from tests.e2e.conftest import log_in, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _edited(download_path: str, gpus, folder: Path, name: str) -> Path:
    """What the planner does in Excel: change one cell of the value column, save."""
    book = load_workbook(download_path)
    sheet = book["Spec"]
    row = next(r for r in sheet.iter_rows(min_row=2) if r[0].value == "compute.gpu_count")
    row[1].value = gpus
    buffer = io.BytesIO()
    book.save(buffer)
    path = folder / name
    path.write_bytes(buffer.getvalue())
    return path


def test_capacity_planner_changes_gpu_count_in_a_spreadsheet(
    live_server, page, team_a, design_in, tmp_path
):
    alice, alpha = team_a
    design = design_in(alice, alpha, name="Two-region 2k", slug="two-region-hierarchical")
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run_services.run_execute(run_id=run.pk)
    base = live_server.url
    log_in(page, base)

    page.goto(f"{base}/designs/{design.pk}/")
    page.locator("#spreadsheet").scroll_into_view_if_needed()
    screenshot(page, "sheets-design-page")
    with page.expect_download() as download:
        page.click("#spec-xlsx")
    assert download.value.suggested_filename == "two-region-2k-r1-spec.xlsx"
    spec_file = tmp_path / download.value.suggested_filename
    download.value.save_as(spec_file)

    # A typo first: the page names the row, the column and the field; nothing is saved.
    page.set_input_files("#id_patch-file", str(_edited(spec_file, "4k", tmp_path, "typo.xlsx")))
    page.click("#sheet-patch button[type=submit]")
    errors = page.locator("#sheet-errors tbody tr")
    assert errors.count() == 1
    row_text = errors.first.inner_text()
    assert "compute.gpu_count" in row_text and "B (value)" in row_text
    screenshot(page, "sheets-import-error")
    assert design.revisions.count() == 1
    # The refused upload answers 400, which Chromium logs as a failed resource: expected.
    assert all("status of 400" in error for error in page.console_errors)
    page.console_errors.clear()

    page.goto(f"{base}/designs/{design.pk}/")
    page.set_input_files("#id_patch-file", str(_edited(spec_file, 4096, tmp_path, "plan.xlsx")))
    page.click("#sheet-patch button[type=submit]")
    page.wait_for_url(f"{base}/designs/{design.pk}/diff/?from=1&to=2")
    changes = page.locator("#spec-diff tbody tr")
    assert changes.count() == 1
    assert [c.strip() for c in changes.first.inner_text().split("\t")] == [
        "compute.gpu_count",
        "2048",
        "4096",
    ]
    page.locator("#spec-diff").scroll_into_view_if_needed()
    screenshot(page, "sheets-diff-before-evaluation")

    page.click("#evaluate-latest")
    page.wait_for_url(f"{base}/runs/**")
    page.wait_for_selector(".headline-card")
    screenshot(page, "sheets-new-revision-results")

    page.goto(f"{base}/designs/{design.pk}/diff/?from=1&to=2")
    headline = page.locator("#headline-diff tbody tr")
    assert headline.count() >= 5
    step = page.locator("#headline-diff tbody tr", has_text="Step time").inner_text()
    assert "(s)" in step and "(" in step.split("\t")[-1]  # a signed change with its %
    screenshot(page, "sheets-diff-with-results")
    assert page.console_errors == []
