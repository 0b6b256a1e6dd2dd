"""The PDF of a two-design report: built by the Celery task function, read back with pdftotext
(headings, the numbers the web page shows, the roadmap's phase names) and pdftoppm (every page
renders, chart pages are not blank, no ink outside the page). Saves a few pages as PNG under
artifacts/report-pages/ for a person to look at."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageStat

import models_engine
from studio.reports import services
from studio.reports.models import ChartSvg, PdfStatus, Report
from studio.reports.tasks import build_report_pdf
from tests.conftest import ROOT
from tests.studio.reports.roadmap_fixture import fake_roadmap

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not shutil.which("pdftotext"), reason="needs poppler-utils (bin/test)"),
]

ARTIFACTS = ROOT / "artifacts" / "report-pages"


@pytest.fixture(scope="module")
def built(django_db_setup, django_db_blocker, tmp_path_factory):
    """One report PDF for every test of this module (the build is the slow part)."""
    from django.contrib.auth import get_user_model

    from studio.accounts.models import Membership, Team
    from studio.designs import services as design_services
    from tests.conftest import example_spec
    from tests.studio.reports.conftest import evaluate

    with django_db_blocker.unblock():
        user = get_user_model().objects.create_user("pdf-author", password="pw")
        team = Team.objects.create(name="PDF team", slug="pdf-team")
        Membership.objects.create(team=team, user=user, role="owner")
        project = design_services.project_create(actor=user, team=team, name="Board pack")
        designs = [
            design_services.design_create(
                actor=user, project=project, name=name, spec=example_spec(slug), message="t"
            )
            for slug, name in (
                ("h100-256-onprem-starter", "256x H100 starter"),
                ("dgx-h100-superpod-4su", "DGX H100 SuperPOD, 4 SU"),
            )
        ]
        for design in designs:
            evaluate(user, design)
        with pytest.MonkeyPatch.context() as patch:
            if not hasattr(models_engine, "evaluate_roadmap"):
                patch.setattr(models_engine, "evaluate_roadmap", fake_roadmap, raising=False)
            report = services.report_create(
                actor=user,
                project=project,
                title="Q4 cluster decision",
                summary="We recommend the starter cluster now and the SuperPOD next year.",
                designs=designs,
                dispatch=False,
            )
        build_report_pdf.apply(args=[report.pk])  # the Celery task, run eagerly
        report = Report.objects.get(pk=report.pk)
        folder = tmp_path_factory.mktemp("pdf")
        path = folder / "report.pdf"
        path.write_bytes(bytes(report.pdf or b""))
    yield report, path, folder
    with django_db_blocker.unblock():  # made outside any test's transaction: remove it all
        Report.objects.filter(pk=report.pk).delete()
        ChartSvg.objects.all().delete()  # the charts it printed
        team.delete()
        user.delete()


def pdftext(path: Path, *args) -> str:
    return subprocess.run(
        ["pdftotext", "-layout", *args, str(path), "-"], capture_output=True, text=True, check=True
    ).stdout


def test_pdf_is_built_and_stored(built):
    report, path, _ = built
    assert report.pdf_status == PdfStatus.DONE, report.pdf_error
    assert path.read_bytes().startswith(b"%PDF")
    assert report.pdf_pages >= 8


def test_pdf_text_has_headings_numbers_and_roadmap_phases(built, client):
    report, path, _ = built
    text = pdftext(path)
    flat = re.sub(r"\s+", " ", text)
    for heading in (
        "Contents",
        "Executive summary",
        "Headline comparison",
        "Roadmap for 256x H100 starter",
        "Performance",
        "Findings to act on",
        "Changes since the previous report",
        "Assumptions and sources",
    ):
        assert heading in flat, heading
    assert "Q4 cluster decision" in flat and "We recommend the starter cluster" in flat
    # The roadmap's phase names, as the engine (or the fixture) wrote them.
    for phase in report.roadmap["phases"]:
        assert phase["title"][:30] in flat, phase["title"]
    # Numbers the web page shows are in the PDF: the headline table as rendered on the page.
    client.force_login(report.author)
    page = client.get(f"/reports/{report.pk}/").content.decode()
    page = page.split('id="headline-table"')[1].split("</table>")[0]
    cells = re.findall(r'<td class="num[^"]*">([^<]+?)(?: <span|</td>)', page)
    assert len(cells) >= 20
    for cell in cells:
        assert cell.strip() in flat, cell
    assert "no published reference" in flat and "nearest published" in flat
    # The roadmap's costs: what the cost engine did not price says so, never a $0.
    roadmap = flat.split("Roadmap for 256x H100 starter")[-1].split("Performance —")[0]
    assert "$0 " not in roadmap and "$0.0" not in roadmap
    assert "not priced" in roadmap or "unpriced" in roadmap
    # Page numbers from the CSS counters.
    assert f"Page 2 of {report.pdf_pages}" in flat


def test_every_page_renders_charts_have_ink_and_nothing_leaves_the_page(built):
    report, path, folder = built
    subprocess.run(["pdftoppm", "-r", "50", "-png", str(path), str(folder / "p")], check=True)
    pages = sorted(folder.glob("p-*.png"))
    assert len(pages) == report.pdf_pages
    for page in pages:
        image = Image.open(page).convert("L")
        assert ImageStat.Stat(image).stddev[0] > 5, f"{page.name} is blank"
    # Text boxes (pdftotext -bbox) all inside the page.
    bbox = subprocess.run(
        ["pdftotext", "-bbox", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    for page in re.finditer(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', bbox, re.S):
        width, height = float(page[1]), float(page[2])
        for x0, y0, x1, y1 in re.findall(
            r'xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)"', page[3]
        ):
            assert float(x0) >= -0.5 and float(x1) <= width + 0.5
            assert float(y0) >= -0.5 and float(y1) <= height + 0.5


def test_saves_pages_for_a_person_to_look_at(built):
    _, path, _ = built
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    text = pdftext(path)
    pages = text.split("\f")
    wanted = {1: "cover"}
    for number, page in enumerate(pages, start=1):
        # The contents page lists every heading too: the headline page is the one with the table.
        headline_page = "Headline comparison" in page and "Contents" not in page
        if headline_page and "headline" not in wanted.values():
            wanted[number] = "headline"
        if "Roadmap for" in page and "roadmap" not in wanted.values():
            wanted[number] = "roadmap"
        is_charts = "Performance" in page and "step" in page.lower() and number > 3
        if is_charts and "charts" not in wanted.values():
            wanted[number] = "charts"
    for number, name in wanted.items():
        subprocess.run(
            [
                "pdftoppm",
                "-r",
                "80",
                "-png",
                "-f",
                str(number),
                "-l",
                str(number),
                "-singlefile",
                str(path),
                str(ARTIFACTS / f"page-{number:02d}-{name}"),
            ],
            check=True,
        )
    assert len(list(ARTIFACTS.glob("*.png"))) >= 3
