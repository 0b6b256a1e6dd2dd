"""Reports: an immutable snapshot (editing a design later changes neither the report nor its
PDF), audited, team-scoped (viewer reads, editor creates, other teams get 404), listed per
project, downloadable from the page and the API."""

import re

import pytest

from studio.accounts.models import Membership
from studio.core.models import AuditEvent
from studio.designs import services as design_services
from studio.reports import services
from studio.reports.models import PdfStatus, Report
from tests.conftest import example_spec

pytestmark = pytest.mark.django_db


def make_report(alice, first, second, **extra):
    return services.report_create(
        actor=alice,
        project=first.project,
        title="Board pack",
        summary="Summary.",
        designs=[first, second],
        dispatch=False,
        **extra,
    )


def test_report_is_a_snapshot_that_design_changes_do_not_touch(two_designs):
    alice, first, second = two_designs
    report = make_report(alice, first, second)
    Report.objects.filter(pk=report.pk).update(pdf=b"%PDF-frozen", pdf_status=PdfStatus.DONE)
    before = Report.objects.get(pk=report.pk)
    spec = example_spec()
    spec["workload"]["tokens_to_train"] *= 2
    design_services.design_revision_create(
        actor=alice, design=first, spec=spec, message="bigger run"
    )
    from tests.studio.reports.conftest import evaluate

    evaluate(alice, first)
    after = Report.objects.get(pk=report.pk)
    assert after.covers == before.covers
    assert after.roadmap == before.roadmap
    assert bytes(after.pdf) == b"%PDF-frozen"
    assert after.covers[0]["revision_number"] == 1
    assert first.revisions.count() == 2
    with pytest.raises(ValueError, match="immutable"):
        after.title = "changed"
        after.save()


def test_create_is_audited_and_keeps_revisions_and_roadmap(two_designs):
    alice, first, second = two_designs
    report = make_report(alice, first, second, baseline=second)
    assert [c["design_name"] for c in report.covers] == [first.name, second.name]
    assert report.covers[0]["spec_hash"] == first.latest_revision.spec_hash
    assert report.covers[0]["engine_version"]
    assert report.baseline["design_id"] == second.pk
    assert report.roadmap and report.roadmap["phases"]
    event = AuditEvent.objects.get(action="report.create", target_id=str(report.pk))
    assert event.project_id == first.project_id


def test_design_without_a_finished_run_is_refused(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    with pytest.raises(services.ReportInvalid, match="no finished run"):
        services.report_create(
            actor=alice, project=design.project, title="t", summary="", designs=[design]
        )


def test_pages_and_roles(two_designs, client, make_member, team_b):
    alice, first, second = two_designs
    project = first.project
    report = make_report(alice, first, second)
    Report.objects.filter(pk=report.pk).update(pdf=b"%PDF-1.7 x", pdf_status=PdfStatus.DONE)
    viewer, _ = make_member("vera", "Viewers")
    Membership.objects.create(team=project.team, user=viewer, role="viewer")
    client.force_login(viewer)
    listing = client.get(f"/projects/{project.pk}/reports/")
    assert listing.status_code == 200 and "Board pack" in listing.content.decode()
    assert 'id="report-create"' not in listing.content.decode()
    page = client.get(f"/reports/{report.pk}/")
    assert page.status_code == 200
    assert "Headline comparison" in page.content.decode()
    assert client.get(f"/reports/{report.pk}/report.pdf").content.startswith(b"%PDF")
    post = {"title": "x", "designs": [first.pk]}
    assert client.post(f"/projects/{project.pk}/reports/", post).status_code == 403
    bob, _ = team_b
    client.force_login(bob)
    assert client.get(f"/reports/{report.pk}/").status_code == 404
    assert client.get(f"/reports/{report.pk}/report.pdf").status_code == 404
    assert client.get(f"/projects/{project.pk}/reports/").status_code == 404
    assert client.get(f"/api/reports/{report.pk}/pdf/").status_code == 404


def test_editor_creates_from_the_form_and_the_project_links_reports(
    two_designs, client, django_capture_on_commit_callbacks
):
    alice, first, second = two_designs
    client.force_login(alice)
    project_page = client.get(f"/projects/{first.project.pk}/").content.decode()
    assert f"/projects/{first.project.pk}/reports/" in project_page
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(
            f"/projects/{first.project.pk}/reports/",
            {"title": "From the form", "summary": "s", "designs": [second.pk, first.pk]},
        )
    assert response.status_code == 302, response.content.decode()[:2000]
    report = Report.objects.get(title="From the form")
    assert report.covers[0]["design_id"] == second.pk  # the first ticked is the primary
    assert len(callbacks) == 1  # the PDF task is queued once the report is committed
    assert report.pdf_status == PdfStatus.QUEUED


def test_api_lists_reports_and_serves_the_pdf(two_designs, client):
    alice, first, second = two_designs
    report = make_report(alice, first, second)
    Report.objects.filter(pk=report.pk).update(pdf=b"%PDF-1.7 api", pdf_status=PdfStatus.DONE)
    client.force_login(alice)
    listed = client.get("/api/reports/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert rows[0]["revisions"][0]["spec_hash"] == first.latest_revision.spec_hash
    pdf = client.get(f"/api/reports/{report.pk}/pdf/")
    assert pdf.status_code == 200 and pdf.content == b"%PDF-1.7 api"


def test_second_report_shows_changes_since_the_previous(two_designs, client):
    alice, first, second = two_designs
    make_report(alice, first, second)
    spec = example_spec()
    spec["workload"]["tokens_to_train"] *= 2
    design_services.design_revision_create(
        actor=alice, design=first, spec=spec, message="bigger run"
    )
    from tests.studio.reports.conftest import evaluate

    evaluate(alice, first)
    later = make_report(alice, first, second)
    client.force_login(alice)
    page = client.get(f"/reports/{later.pk}/").content.decode()
    assert "r1 → r2" in page
    assert "Time to train" in page.split('id="diff"')[1]


def test_roadmap_costs_name_what_is_unpriced_and_never_show_a_made_up_zero(
    team_a, design_in, client
):
    """The L40S pod: its fabric upgrade is not proposed (PCIe-bound step), its control plane
    adds storage-network lines (priced: catalog or marked allowance, since every BOM line has
    a price now), several phases change nothing the cost engine prices. Page and API say so
    instead of showing $0."""
    from tests.studio.reports.conftest import evaluate

    alice, alpha = team_a
    design = design_in(alice, alpha, name="L40S pod", slug="l40s-custom-gpu-finetune")
    evaluate(alice, design)
    report = services.report_create(
        actor=alice,
        project=design.project,
        title="L40S plan",
        summary="",
        designs=[design],
        dispatch=False,
    )
    client.force_login(alice)
    page = client.get(f"/reports/{report.pk}/").content.decode()
    table = page.split('id="phase-table"')[1].split("</table>")[0]
    assert "$0" not in table
    assert "no BOM change" in table and "not proposed" in table
    assert "unpriced line" not in table  # every BOM line is priced or a marked allowance
    assert "PCIe" in page
    assert "MFU (vs the BF16 peak)" in page
    assert "saves $-" not in page and re.search(r"net cost \$[\d.,]+k?/yr", page)
    api = client.get(f"/api/reports/{report.pk}/").json()["roadmap"]
    phases = {p["id"]: p for p in api["phases"]}
    assert phases["fabric-upgrade"]["status"] == "not-proposed"
    assert phases["fabric-upgrade"]["capex_usd"] is None
    assert phases["assessment"]["capex_usd"] is None  # no action the cost engine prices
    assert phases["control-plane"]["capex_usd"] > 0 and not phases["control-plane"]["unpriced"]
    assert "roadmap" not in client.get("/api/reports/").json()["results"][0]


def test_report_figures_are_the_runs_stored_ones_and_survive_the_run(two_designs):
    """The report reads the figures stored on the covered run (built when it finished); once
    that run is gone it builds the same figures from its own snapshot."""
    from studio.reports.document import engine_sections
    from studio.runs.models import EngineRun

    alice, first, second = two_designs
    report = make_report(alice, first, second)
    cover = report.covers[0]
    stored = engine_sections(cover)
    assert EngineRun.objects.get(pk=cover["run_id"]).figures["sections"]
    EngineRun.objects.filter(pk=cover["run_id"]).delete()
    rebuilt = engine_sections(cover)
    assert [s["key"] for s in rebuilt] == [s["key"] for s in stored]
    assert [f["spec"] for s in rebuilt for f in s["figures"]] == [
        f["spec"] for s in stored for f in s["figures"]
    ]


def test_the_headline_names_every_designs_software_stack_from_its_snapshot(two_designs, client):
    """The report details the first design's engines only; the headline section names each
    design's software stack as its snapshot's performance result states it (page and PDF)."""
    from studio.reports.document import covers_stacks
    from studio.runs.sections.performance import stack_summary
    from studio.runs.selectors import parse_results

    alice, first, second = two_designs
    report = make_report(alice, first, second)
    stacks = covers_stacks(report.covers)
    assert [s["design"] for s in stacks] == [first.name, second.name]
    for cover, line in zip(report.covers, stacks, strict=True):
        typed = parse_results(cover["results"])
        assert line["text"] == stack_summary(typed.performance.software_stack)
    client.force_login(alice)
    html = client.get(f"/reports/{report.pk}/").content.decode()
    paragraph = html.split('id="headline-stacks"', 1)[1].split("</p>", 1)[0]
    for line in stacks:
        assert f"{line['design']}: " in paragraph
        assert line["text"].split(":")[0] in paragraph
