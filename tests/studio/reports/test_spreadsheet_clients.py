"""Real spreadsheet clients: LibreOffice Calc (Debian's, headless) opens every XLSX export and
converts it to ODS and back, and to CSV: values and types survive. A spec exported to XLSX,
edited in one cell and imported as a patch gives a revision whose diff is exactly that cell. A
feed URL fetched as Google Sheets' IMPORTDATA does (no cookie, no header, token in the query)
parses as CSV. And the XLSX an analyst keeps: units in headers, formats, widths, frozen
header, filter, a Definitions sheet; design id, revision, GPU model and count per design."""

import csv
import io
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

from models_engine import load_catalog, spec_diff
from studio.accounts.models import TokenKind
from studio.accounts.tokens import token_create
from studio.runs.selectors import typed_results
from studio.runs.tables import available_tables

pytestmark = pytest.mark.django_db
GPU_NAME = load_catalog().gpus["h100-sxm-80gb"].name  # the starter example's GPU
# Excel and Calc keep 15 significant digits of a number (IEEE 754 double, shown to 15).
SIGNIFICANT = 1e-14
# Google's fetcher sends only this User-Agent: no cookie, no Authorization header.
IMPORTDATA_USER_AGENT = (
    "Mozilla/5.0 (compatible; GoogleDocs; apps-spreadsheets; +http://docs.google.com)"
)
# LibreOffice's CSV filter: comma, double quote, UTF-8, and the cell values, not "as shown".
RAW_CSV_FILTER = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false"


@pytest.fixture(scope="module")
def soffice() -> str:
    path = shutil.which("soffice")
    if path is None:
        pytest.fail("LibreOffice not found (bin/test installs Debian's libreoffice-calc-nogui)")
    return path


def convert(soffice: str, files: list[Path], target: str, outdir: Path) -> list[Path]:
    """Convert with LibreOffice Calc, headless, in a profile of its own (parallel-safe)."""
    outdir.mkdir(parents=True, exist_ok=True)
    profile = (outdir.parent / "lo-profile").as_uri()
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={profile}",
            "--headless",
            "--convert-to",
            target,
            "--outdir",
            str(outdir),
            *map(str, files),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    suffix = target.split(":", 1)[0]
    return [outdir / f"{file.stem}.{suffix}" for file in files]


def every_xlsx_export(client, design, run) -> dict[str, bytes]:
    urls = [
        f"/exports/projects/{design.project.pk}/designs.xlsx",
        f"/exports/designs/{design.pk}/spec.xlsx",
    ]
    urls += [
        f"/exports/runs/{run.pk}/{table['name']}.xlsx"
        for table in available_tables(typed_results(run))
    ]
    files = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        files[url.strip("/").replace("/", "-").removesuffix(".xlsx")] = response.content
    return files


def write_exports(exports: dict[str, bytes], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, content in exports.items():
        path = folder / f"{name.replace('.', '-')}.xlsx"
        path.write_bytes(content)
        paths.append(path)
    return paths


def typed_cells(workbook) -> dict:
    """{(sheet, row, column): (value, type)} of every non-empty cell; floats to the 15
    significant digits a spreadsheet keeps."""
    return {
        (sheet.title, cell.row, cell.column): (
            float(f"{cell.value:.15g}") if isinstance(cell.value, float) else cell.value,
            type(cell.value).__name__,
        )
        for sheet in workbook.worksheets
        for line in sheet.iter_rows()
        for cell in line
        if cell.value is not None
    }


def test_libreoffice_converts_every_xlsx_export_to_ods_and_back_values_and_types_survive(
    client, team_a, evaluated, soffice, tmp_path
):
    design, run = evaluated
    client.force_login(team_a[0])
    exports = every_xlsx_export(client, design, run)
    assert len(exports) >= 6  # designs, spec and the run's tables
    originals = write_exports(exports, tmp_path / "in")
    odss = convert(soffice, originals, "ods", tmp_path / "ods")
    backs = convert(soffice, odss, "xlsx:Calc MS Excel 2007 XML", tmp_path / "back")
    for original, back in zip(originals, backs, strict=True):
        before = load_workbook(original)
        after = load_workbook(back, data_only=True)  # LibreOffice writes TRUE as =TRUE()
        assert [s.title for s in after.worksheets] == [s.title for s in before.worksheets]
        assert typed_cells(after) == typed_cells(before), original.name
        data_before, data_after = before.worksheets[0], after.worksheets[0]
        assert data_after.auto_filter.ref == data_before.auto_filter.ref, original.name
        for cell in data_before[2]:  # number formats survive too
            assert data_after[cell.coordinate].number_format == cell.number_format


def test_libreoffice_csv_of_every_xlsx_export_holds_the_same_values(
    client, team_a, evaluated, soffice, tmp_path
):
    design, run = evaluated
    client.force_login(team_a[0])
    paths = write_exports(every_xlsx_export(client, design, run), tmp_path / "in")
    csvs = convert(soffice, paths, RAW_CSV_FILTER, tmp_path / "csv")
    for path, csv_path in zip(paths, csvs, strict=True):
        sheet = load_workbook(path).worksheets[0]
        rows = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
        for line, cells in zip(sheet.iter_rows(values_only=True), rows, strict=True):
            for value, text in zip(line, cells, strict=False):
                assert _same(value, text), (path.name, value, text)


def _same(value, text: str) -> bool:
    if value is None:
        return text == ""
    if isinstance(value, bool):
        return text.upper() == str(value).upper()
    if isinstance(value, int | float):  # a percent cell is written as 48.6188214523%
        number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        return number == pytest.approx(value, rel=SIGNIFICANT, abs=1e-15)
    return text == value


def test_spec_xlsx_edited_in_one_cell_imports_as_a_patch_with_exactly_that_change(
    client, team_a, design_in, soffice, tmp_path
):
    """The round trip: export, edit the GPU count with openpyxl, save through LibreOffice as a
    user's spreadsheet program would, import the file as a patch: the diff is that one cell."""
    alice, alpha = team_a
    design = design_in(alice, alpha, slug="two-region-hierarchical")
    client.force_login(alice)
    book = load_workbook(io.BytesIO(client.get(f"/exports/designs/{design.pk}/spec.xlsx").content))
    sheet = book["Spec"]
    row = next(r for r in sheet.iter_rows(min_row=2) if r[0].value == "compute.gpu_count")
    assert row[1].value == 2048 and row[1].number_format == "#,##0"
    row[1].value = 4096
    edited = tmp_path / "edited.xlsx"
    book.save(edited)
    (saved,) = convert(soffice, [edited], "xlsx:Calc MS Excel 2007 XML", tmp_path / "saved")
    response = client.post(
        f"/api/designs/{design.pk}/spec-patch/",
        {"file": SimpleUploadedFile("edited.xlsx", saved.read_bytes()), "base_revision": 1},
    )
    assert response.status_code == 201, response.content
    assert [(c["path"], c["old"], c["new"]) for c in response.json()["changes"]] == [
        ("compute.gpu_count", 2048, 4096)
    ]
    after = design.revisions.get(number=2)
    assert spec_diff(design.revisions.get(number=1).spec, after.spec) == response.json()["changes"]
    diff_page = client.get(f"/designs/{design.pk}/diff/?from=1&to=2").content.decode()
    assert "compute.gpu_count" in diff_page and "4096" in diff_page


def test_importdata_fetch_of_a_feed_url_parses_as_csv(live_server, team_a, evaluated):
    """IMPORTDATA sends no cookie and no Authorization: the token rides in the query."""
    alice, _ = team_a
    design, run = evaluated
    _, key = token_create(actor=alice, name="gsheet", kind=TokenKind.FEED, project=design.project)
    for path in (
        f"/exports/projects/{design.project.pk}/designs.csv",
        f"/exports/designs/{design.pk}/spec.csv",
        f"/exports/runs/{run.pk}/headline.csv",
    ):
        request = urllib.request.Request(
            f"{live_server.url}{path}?token={key}", headers={"User-Agent": IMPORTDATA_USER_AGENT}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200 and response.headers["Content-Type"].startswith(
                "text/csv"
            )
            rows = list(csv.DictReader(io.StringIO(response.read().decode("utf-8"))))
        assert rows, path
    designs = _fetch_csv(
        live_server, f"/exports/projects/{design.project.pk}/designs.csv?token={key}"
    )
    assert designs[0]["Design ID"] == str(design.pk) and designs[0]["Revision"] == "r1"
    assert designs[0]["GPU model"] == GPU_NAME
    assert designs[0]["GPU count (GPUs)"] == "256"
    assert float(designs[0]["Step time (s)"]) == pytest.approx(
        run.results["headline"]["step_time_s"]
    )
    # Without the token the same fetch is refused (no login page, no data).
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(
            f"{live_server.url}/exports/designs/{design.pk}/spec.csv", timeout=30
        )
    assert refused.value.code == 404


def _fetch_csv(live_server, path: str) -> list[dict]:
    request = urllib.request.Request(
        f"{live_server.url}{path}", headers={"User-Agent": IMPORTDATA_USER_AGENT}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return list(csv.DictReader(io.StringIO(response.read().decode("utf-8"))))


def test_the_xlsx_an_analyst_keeps(client, team_a, evaluated):
    design, run = evaluated
    client.force_login(team_a[0])
    book = load_workbook(
        io.BytesIO(client.get(f"/exports/projects/{design.project.pk}/designs.xlsx").content)
    )
    sheet = book["Designs"]
    headers = [cell.value for cell in sheet[1]]
    assert headers[:6] == [
        "Design ID",
        "Design",
        "Revision",
        "GPU model",
        "GPU count (GPUs)",
        "Run",
    ]
    assert "Step time (s)" in headers and "Capex (USD)" in headers and "MFU (fraction)" in headers
    assert not any("_" in header for header in headers)  # no `step_time_s (s)`
    assert sheet.freeze_panes == "A2" and sheet.auto_filter.ref == f"A1:{_last(sheet)}2"
    values = dict(zip(headers, [cell for cell in sheet[2]], strict=True))
    assert values["Design ID"].value == design.pk and values["Revision"].value == "r1"
    assert values["GPU count (GPUs)"].value == 256
    assert values["GPU model"].value == GPU_NAME  # the catalog's name, not the id
    assert values["Step time (s)"].number_format == "0.000"
    assert values["Capex (USD)"].number_format == "#,##0"
    assert values["MFU (fraction)"].number_format == "0.0%"
    # The full value (to a spreadsheet's 15 digits), not the rounded display.
    step_time = run.results["headline"]["step_time_s"]
    assert values["Step time (s)"].value == pytest.approx(step_time, rel=SIGNIFICANT)
    assert all(sheet.column_dimensions[c].width >= 8 for c in ("A", "B", "C", "D"))
    definitions = book["Definitions"]
    defined = {row[0]: row for row in definitions.iter_rows(min_row=2, values_only=True) if row[0]}
    assert set(headers) <= set(defined)
    assert all(defined[h][2] and defined[h][3] for h in headers)  # a definition and a source
    # A run table: the engine's field names become labels with units.
    bom = load_workbook(io.BytesIO(client.get(f"/exports/runs/{run.pk}/bom.xlsx").content))
    bom_headers = [cell.value for cell in bom.worksheets[0][1]]
    assert "Unit price (USD)" in bom_headers and "Total power (W)" in bom_headers
    about = {row[0]: row[2] for row in bom["Definitions"].iter_rows(values_only=True) if row[0]}
    assert about["Revision"] == "r1" and "x 256" in about["GPU"]


def _last(sheet) -> str:
    return get_column_letter(sheet.max_column)
