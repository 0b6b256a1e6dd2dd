"""Presenting mode: leaving a what-if field for "Save as revision" also fires the form's
delayed what-if. The save must win: the what-if is dropped while the save is in flight, so
"Saved as r2" is never replaced by a what-if on the new, not yet evaluated revision (the race
seen in CI on 2026-11-27). Both views are slowed here so that the race happens every time."""

import time

import pytest
from playwright.sync_api import expect

from studio.reviews import present_views, services
from tests.e2e.conftest import log_in
from tests.studio.reviews.conftest import evaluate

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _slowed(function, seconds: float):
    def slow(*args, **kwargs):
        time.sleep(seconds)
        return function(*args, **kwargs)

    return slow


def test_saving_a_what_if_is_not_overwritten_by_the_what_if_leaving_the_field_fires(
    live_server, page, make_member, design_in, monkeypatch
):
    alice, alpha = make_member("alice", "Alpha", role="owner")
    bob, _ = make_member("bob", "Alpha", role="editor")
    design = design_in(alice, alpha, name="Race 256")
    evaluate(design.latest_revision, alice)
    review = services.review_request(
        actor=alice, project=design.project, designs=[design], reviewers=[bob]
    )
    # The what-if answers late, the save takes a while: without the sync the what-if's
    # answer lands after the save's.
    monkeypatch.setattr(present_views, "what_if", _slowed(present_views.what_if, 1.5))
    monkeypatch.setattr(
        present_views, "save_as_revision", _slowed(present_views.save_as_revision, 0.5)
    )
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/reviews/{review.pk}/present/")
    page.keyboard.press("ArrowRight")
    what_if = page.locator(f"#what-if-{design.pk}")
    expect(what_if).to_be_visible()
    what_if.locator("[name=utilisation]").fill("0.6")  # focus stays in the field
    page.once("dialog", lambda dialog: dialog.accept())
    what_if.locator(".save-what-if").click()  # blur: change fires, the save starts
    saved = page.locator("#what-if-saved")
    expect(saved).to_contain_text("r2", timeout=30_000)
    page.wait_for_timeout(2_500)  # longer than the slowed what-if takes to answer
    expect(saved).to_contain_text("r2")
    assert design.revisions.count() == 2
