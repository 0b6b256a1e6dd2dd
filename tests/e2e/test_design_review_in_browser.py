"""Issue 21's browser test: two users in two browser contexts. A asks B for a review; B sees
it in the inbox and comments on a headline number; A sees the comment appear without
reloading; B approves; A pushes a new revision from presenting mode's what-if; B's approval
shows as stale; B approves again; the design shows approved; the report PDF's sign-off page
lists it. Screenshots at 1440x900 go to artifacts/screenshots/."""

import re
import shutil
import subprocess

import pytest
from playwright.sync_api import expect

from studio.designs.models import Design
from studio.reports.models import PdfStatus, Report
from tests.e2e.conftest import close_quietly, log_in, screenshot
from tests.studio.reviews.conftest import evaluate

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _new_context_page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    return context, page


def _pdf_text(pdf: bytes, tmp_path) -> str:
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="needs poppler-utils (bin/test)")
def test_two_users_review_a_design(live_server, browser, make_member, design_in, tmp_path):
    base = live_server.url
    alice, alpha = make_member("alice", "Alpha", role="owner")
    make_member("bob", "Alpha", role="editor")
    design = design_in(alice, alpha, name="Starter 256")
    evaluate(design.latest_revision, alice)

    context_a, page_a = _new_context_page(browser)
    context_b, page_b = _new_context_page(browser)
    try:
        # A asks B for a review of the design's latest revision.
        log_in(page_a, base, "alice")
        page_a.goto(f"{base}/designs/{design.pk}/")
        expect(page_a.locator("#design-review-status")).to_contain_text("draft")
        page_a.click("#design-review-status >> text=ask for a review")
        page_a.check(f"input[name=designs][value='{design.pk}']")
        page_a.check("#review-request >> text=bob")
        screenshot(page_a, "review-request")
        page_a.click("#request-review")
        page_a.wait_for_url(re.compile(r".*/reviews/\d+/$"))
        review_url = page_a.url
        expect(page_a.locator("#review-status")).to_have_text("in review")
        page_a.evaluate("window.__notReloaded = true")

        # B sees it in the inbox (with the badge) and comments on a headline number.
        log_in(page_b, base, "bob")
        expect(page_b.locator("#review-badge")).to_have_text("1")
        page_b.click("#nav-reviews")
        expect(page_b.locator("#inbox")).to_contain_text("Review of Starter 256 r1")
        screenshot(page_b, "review-inbox")
        page_b.click("#inbox >> text=Review of Starter 256 r1")
        page_b.wait_for_url(review_url)
        page_b.click("[data-anchor-kind=headline][data-anchor-key=tco_usd]")
        expect(page_b.locator("#anchor-chip")).to_contain_text("TCO")
        page_b.fill("#comment-form [name=body]", "Is the TCO with the negotiated price?")
        page_b.click("#comment-submit")
        expect(page_b.locator("#threads")).to_contain_text("negotiated price")

        # A sees it within two seconds, without reloading.
        expect(page_a.locator("#threads")).to_contain_text("negotiated price", timeout=2_000)
        expect(page_a.locator("#threads .anchor-chip").first).to_contain_text("TCO")
        assert page_a.evaluate("window.__notReloaded") is True
        screenshot(page_a, "review-comment-live")

        # B approves; A's panel follows.
        page_b.select_option("#id_kind", "approve")
        page_b.click("#verdict-submit")
        expect(page_a.locator("#review-status")).to_have_text("approved", timeout=2_500)

        # A presents, tries a what-if and saves it as a new revision (exactly one).
        page_a.click("#present")
        page_a.wait_for_url(re.compile(r".*/present/.*"))
        page_a.keyboard.press("ArrowRight")
        what_if = page_a.locator(f"#what-if-{design.pk}")
        expect(what_if).to_be_visible()
        what_if.locator("[name=utilisation]").fill("0.6")
        what_if.locator("[name=utilisation]").dispatch_event("change")
        # A what-if re-evaluates the design synchronously (every engine), and saving it
        # evaluates it again: on a loaded 2-core CI machine that can take longer than
        # Playwright's default 5 s.
        evaluated = 30_000
        expect(page_a.locator(".what-if-table")).to_contain_text(
            "Cost per delivered GPU-hour", timeout=evaluated
        )
        screenshot(page_a, "review-present-what-if")
        assert Design.objects.get(pk=design.pk).revisions.count() == 1
        page_a.once("dialog", lambda dialog: dialog.accept())
        page_a.click(f"#what-if-{design.pk} .save-what-if")
        expect(page_a.locator("#what-if-saved")).to_contain_text("r2", timeout=evaluated)
        assert Design.objects.get(pk=design.pk).revisions.count() == 2
        page_a.keyboard.press("Escape")
        page_a.wait_for_url(review_url)

        # B's approval is now stale (live, no reload); B approves r2.
        expect(page_b.locator("[data-reviewer=bob] .stale")).to_be_visible(timeout=2_500)
        expect(page_b.locator("#review-status")).to_have_text("in review")
        expect(page_b.locator(f"#design-{design.pk} .newer-revision")).to_be_visible()
        page_b.locator("#live").scroll_into_view_if_needed()
        screenshot(page_b, "review-stale-approval")
        page_b.select_option("#id_kind", "approve")
        page_b.click("#verdict-submit")
        expect(page_b.locator("#review-status")).to_have_text("approved")
        expect(page_b.locator("[data-reviewer=bob]")).to_contain_text("approve on r2")

        # The design shows approved; A evaluates r2 and makes a report.
        page_a.goto(f"{base}/designs/{design.pk}/")
        expect(page_a.locator("#design-review-status")).to_contain_text("approved")
        page_a.click("#evaluate")
        page_a.wait_for_selector('[data-status="done"]', timeout=60_000)
        page_a.goto(f"{base}/projects/{design.project.pk}/reports/")
        page_a.fill("#id_title", "Board pack")
        page_a.check(f"#report-create input[name=designs][value='{design.pk}']")
        page_a.click("#report-create button[type=submit]")
        page_a.wait_for_url(re.compile(r".*/reports/\d+/$"), timeout=120_000)
        expect(page_a.locator("#signoff")).to_contain_text("bob")
        page_a.locator("#signoff").scroll_into_view_if_needed()
        screenshot(page_a, "review-report-signoff")
        report = Report.objects.get(title="Board pack")
        assert report.pdf_status == PdfStatus.DONE, report.pdf_error
        text = _pdf_text(bytes(report.pdf), tmp_path)
        signoff = text[text.index("Sign-off\n", text.index("Contents") + 20) :]
        assert "bob" in signoff and "Approve" in signoff and "r2" in signoff
        assert "approved" in signoff
        assert "negotiated price" in signoff  # the open comment
        assert page_a.console_errors == [] and page_b.console_errors == []
    finally:
        close_quietly(context_a)
        close_quietly(context_b)


def test_presenting_a_comparison_with_the_keyboard(live_server, page, make_member, design_in):
    from studio.designs import services as design_services
    from studio.reviews import services as review_services
    from tests.conftest import example_spec

    base = live_server.url
    alice, alpha = make_member("alice", "Alpha", role="owner")
    bob, _ = make_member("bob", "Alpha", role="editor")
    first = design_in(alice, alpha, name="Starter 256")
    second = design_services.design_create(
        actor=alice,
        project=first.project,
        name="Two regions",
        spec=example_spec("two-region-hierarchical"),
        message="test",
    )
    for design in (first, second):
        evaluate(design.latest_revision, alice)
    review = review_services.review_request(
        actor=alice, project=first.project, designs=[first, second], reviewers=[bob]
    )
    log_in(page, base, "alice")
    page.goto(f"{base}/reviews/{review.pk}/")
    expect(page.locator("#design-" + str(second.pk))).to_contain_text("Two regions")
    page.wait_for_selector(".review-charts .chart .main-svg", timeout=20_000)
    screenshot(page, "review-comparison")
    page.click("#present")
    expect(page.locator("#slide-counter")).to_contain_text("1 /")
    screenshot(page, "review-present-title")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#slide-counter")).to_contain_text("Comparison")
    expect(page.locator(".slide.active .big-table")).to_contain_text("Time to train")
    screenshot(page, "review-present-comparison")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#slide-counter")).to_contain_text("Starter 256:")
    page.wait_for_selector(".slide.active .chart .main-svg", timeout=20_000)
    screenshot(page, "review-present-chart")
    # The two-site design's what-if has the site split; typing in it does not move slides.
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    while "Two regions: headline" not in page.locator("#slide-counter").inner_text():
        page.keyboard.press("ArrowLeft")
    share = page.locator(f"#what-if-{second.pk} [name=site_share]")
    share.fill("0.7")
    share.press("ArrowLeft")
    expect(page.locator("#slide-counter")).to_contain_text("Two regions: headline")
    share.dispatch_event("change")
    # the what-if re-evaluates the two-site design synchronously (see the test above)
    expect(page.locator(".slide.active .what-if-note")).to_contain_text(
        "sites.0.gpu_share", timeout=30_000
    )
    expect(page.locator(".slide.active .what-if-table")).to_contain_text("Racks")
    screenshot(page, "review-present-site-split")
    page.keyboard.press("Escape")  # leaves the field
    page.keyboard.press("Escape")  # leaves presenting mode
    page.wait_for_url(f"{base}/reviews/{review.pk}/")
    assert page.console_errors == []
