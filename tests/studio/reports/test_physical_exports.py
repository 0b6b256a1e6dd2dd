"""The physical plan on the results page and its downloads (cable schedule CSV / XLSX, the
NetBox / Nautobot bundle), with the same permission checks as the other exports."""

import io
import json
import zipfile

import pytest
from openpyxl import load_workbook

from studio.accounts.models import TokenKind
from studio.accounts.tokens import token_create
from studio.runs import services as run_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def starter_run(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug="h100-256-onprem-starter")
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    return alice, run_services.run_execute(run_id=run.pk)


def test_results_page_has_the_physical_section(client, starter_run):
    alice, run = starter_run
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    site = run.results["physical"]["sites"][0]["site_id"]
    assert 'id="results-physical"' in page
    assert f'id="rack-elevation-{site}"' in page and "elevation-legend" in page
    assert f"/runs/{run.pk}/cable-schedule.csv" in page
    assert f"/runs/{run.pk}/dcim.zip" in page
    assert "physical-assumptions" in page


def test_cable_schedule_has_one_row_per_link(client, starter_run):
    alice, run = starter_run
    client.force_login(alice)
    links = run.results["physical"]["sites"][0]["cable_links"]
    csv_text = b"".join(client.get(f"/runs/{run.pk}/cable-schedule.csv").streaming_content)
    lines = csv_text.decode().strip().splitlines()
    assert lines[0].startswith("Site,Network,Link class,A device")
    assert "Speed (Gb/s)" in lines[0] and "Length (m)" in lines[0]
    assert len(lines) == links + 1
    book = load_workbook(io.BytesIO(client.get(f"/runs/{run.pk}/cable-schedule.xlsx").content))
    sheet = book.worksheets[0]
    assert sheet.max_row == links + 1 and sheet.freeze_panes == "A2"
    assert isinstance(sheet.cell(2, 10).value, int | float)  # speed: a number, not text


def test_dcim_bundle_from_the_api_and_other_teams_get_404(client, starter_run, team_b):
    alice, run = starter_run
    _, key = token_create(actor=alice, name="dcim", kind=TokenKind.API)
    url = f"/api/runs/{run.pk}/dcim.zip"
    response = client.get(url, headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    names = archive.namelist()
    for part in ("racks", "devices", "cables", "prefixes", "ip-addresses", "vlans"):
        assert f"netbox/{part}.csv" in names
    assert any(n.startswith("netbox/device-types/") and n.endswith(".yaml") for n in names)
    bundle = json.loads(archive.read("nautobot/bundle.json"))
    assert len(bundle["racks"]) == run.results["physical"]["sites"][0]["racks"]
    assert client.get(url).status_code == 404
    client.force_login(team_b[0])
    assert client.get(url).status_code == 404
    assert client.get(f"/runs/{run.pk}/cable-schedule.csv").status_code == 404


def test_cable_schedule_pages_through_every_link(client, starter_run):
    alice, run = starter_run
    client.force_login(alice)
    links = run.results["physical"]["sites"][0]["cable_links"]
    pages = -(-links // 100)
    first = client.get(f"/runs/{run.pk}/cable-schedule/").content.decode()
    assert first.count("<tr>") == 100 + 1  # header row + one page
    last = client.get(f"/runs/{run.pk}/cable-schedule/?page={pages}").content.decode()
    assert last.count("<tr>") == links - (pages - 1) * 100 + 1
    assert client.get(f"/runs/{run.pk}/cable-schedule/?page=x").status_code == 400
