"""The Network section of a report, on its web page and in its PDF (one template for both): the
addressing table, the ASN map, the traffic classes, the tenant overlays with their subnets and
the network's findings, for a RoCE design with two tenants. Saves the PDF's Network pages as PNG
under artifacts/report-pages/ for a person to look at."""

import re
import shutil
import subprocess

import pytest

from studio.reports import services
from studio.reports.models import ChartSvg, Report
from studio.reports.tasks import build_report_pdf
from tests.conftest import ROOT

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not shutil.which("pdftotext"), reason="needs poppler-utils (bin/test)"),
]

ARTIFACTS = ROOT / "artifacts" / "report-pages"
NETWORK = {"tenants": [{"name": "red"}, {"name": "blue"}], "route_summarisation": "pod"}


@pytest.fixture(scope="module")
def built(django_db_setup, django_db_blocker, tmp_path_factory):
    from django.contrib.auth import get_user_model

    from studio.accounts.models import Membership, Team
    from studio.designs import services as design_services
    from tests.conftest import example_spec
    from tests.studio.reports.conftest import evaluate
    from tests.studio.reports.roadmap_fixture import fake_roadmap

    with django_db_blocker.unblock():
        user = get_user_model().objects.create_user("net-author", password="pw")
        team = Team.objects.create(name="Net team", slug="net-team")
        Membership.objects.create(team=team, user=user, role="owner")
        project = design_services.project_create(actor=user, team=team, name="Fabric review")
        spec = {**example_spec("inference-fleet"), "network": NETWORK}
        design = design_services.design_create(
            actor=user, project=project, name="RoCE fleet", spec=spec, message="t"
        )
        run = evaluate(user, design)
        with pytest.MonkeyPatch.context() as patch:
            import models_engine

            if not hasattr(models_engine, "evaluate_roadmap"):
                patch.setattr(models_engine, "evaluate_roadmap", fake_roadmap, raising=False)
            report = services.report_create(
                actor=user,
                project=project,
                title="Fabric review",
                summary="",
                designs=[design],
                dispatch=False,
            )
        build_report_pdf.apply(args=[report.pk])
        report = Report.objects.get(pk=report.pk)
        path = tmp_path_factory.mktemp("pdf") / "report.pdf"
        path.write_bytes(bytes(report.pdf or b""))
    yield report, run, path
    with django_db_blocker.unblock():
        Report.objects.filter(pk=report.pk).delete()
        ChartSvg.objects.all().delete()
        team.delete()
        user.delete()


def network_text(path) -> tuple[str, list[int]]:
    """The PDF's Network section as flat text, and its page numbers."""
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = text.split("\f")
    numbers = [
        n
        for n, page in enumerate(pages, start=1)
        if "Network —" in page or ("Tenant overlays" in page and "Contents" not in page)
    ]
    body = " ".join(pages[n - 1] for n in numbers)
    return re.sub(r"\s+", " ", body), numbers


def test_pdf_network_section_has_addressing_asns_classes_tenants(built):
    _, run, path = built
    flat, numbers = network_text(path)
    assert numbers, "no Network section in the PDF"
    network = run.results["network"]
    site = network["sites"][0]
    for heading in ("Addressing", "eBGP underlay", "Lossless QoS (RoCEv2)", "Tenant overlays"):
        assert heading in flat, heading
    assert site["pools"][0]["cidr"] in flat  # the addressing table
    assert str(site["underlay"]["asns"][0]["asn_first"]) in flat  # the ASN map
    assert "RoCEv2 data" in flat  # the traffic classes
    for tenant in network["tenants"]:
        assert tenant["vrf"] in flat and str(tenant["l3_vni"]) in flat
    assert site["tenant_subnets"][0]["subnet"] in flat
    assert "one aggregate per pod" in flat


def test_network_findings_are_in_the_findings_to_act_on(built, client):
    report, run, _ = built
    warning = next(f for f in run.results["network"]["findings"] if f["severity"] == "warning")
    client.force_login(report.author)
    page = client.get(f"/reports/{report.pk}/").content.decode()
    findings = page.split('id="findings"')[1]
    assert warning["message"].split(":")[0] in findings
    assert 'id="engine-network"' in page and "network-tenants" in page


def test_saves_the_network_pages_for_a_person_to_look_at(built):
    _, _, path = built
    _, numbers = network_text(path)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for number in numbers:
        subprocess.run(
            ["pdftoppm", "-r", "60", "-png", "-f", str(number), "-l", str(number), str(path),
             str(ARTIFACTS / f"network-{number}")],
            check=True,
        )  # fmt: skip
    assert list(ARTIFACTS.glob("network-*.png"))
