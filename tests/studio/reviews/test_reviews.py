"""Reviews end to end through the services and the pages: status follows the verdicts, a new
revision makes approvals stale, anchors survive revisions, role rules, bad input is a 400."""

import copy
import re

import pytest
from django.core import mail

from studio.core.models import AuditEvent
from studio.designs import services as design_services
from studio.reviews import services
from studio.reviews.models import AnchorKind, Notification, ReviewPolicy, VerdictKind
from studio.reviews.presentation import threads
from studio.reviews.selectors import Status, design_status, live_stamp, owed_count
from tests.studio.reviews.conftest import evaluate

pytestmark = pytest.mark.django_db


def _new_revision(design, actor, change):
    spec = copy.deepcopy(design.latest_revision.spec)
    change(spec)
    return design_services.design_revision_create(
        actor=actor, design=design, spec=spec, message="change"
    )


def test_status_follows_verdicts_and_a_new_revision_makes_approvals_stale(crew, reviewed):
    design, review = reviewed
    alice, bob = crew["alice"], crew["bob"]
    assert design_status(design) == Status.IN_REVIEW
    assert owed_count(bob) == 1 and owed_count(alice) == 0

    services.verdict_give(actor=bob, review=review, kind=VerdictKind.APPROVE)
    assert design_status(design) == Status.APPROVED
    assert owed_count(bob) == 0

    revision = _new_revision(design, alice, lambda s: s["economics"].update(utilisation=0.6))
    assert design_status(design) == Status.IN_REVIEW
    assert owed_count(bob) == 1
    from studio.reviews.selectors import review_states

    (state,) = review_states(review)
    (entry,) = state.reviewers
    assert entry.stale and entry.verdict.revision.number == revision.number - 1

    services.verdict_give(actor=bob, review=review, kind=VerdictKind.APPROVE)
    assert design_status(design) == Status.APPROVED
    services.verdict_give(actor=bob, review=review, kind=VerdictKind.REQUEST_CHANGES)
    assert design_status(design) == Status.CHANGES_REQUESTED
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"review.request", "review.verdict"} <= actions


def test_required_approvals_come_from_the_owners_policy(crew, reviewed, make_member):
    design, review = reviewed
    carol, _ = make_member("carol", "Alpha", role="editor")
    services.policy_set(
        actor=crew["alice"], project=design.project, required_approvals=2, viewers_may_approve=False
    )
    services.verdict_give(actor=crew["bob"], review=review, kind=VerdictKind.APPROVE)
    assert design_status(design) == Status.IN_REVIEW
    services.verdict_give(actor=carol, review=review, kind=VerdictKind.APPROVE)
    assert design_status(design) == Status.APPROVED


def test_a_comment_only_verdict_does_not_withdraw_an_approval(crew, reviewed):
    design, review = reviewed
    services.verdict_give(actor=crew["bob"], review=review, kind=VerdictKind.APPROVE)
    services.verdict_give(actor=crew["bob"], review=review, kind=VerdictKind.COMMENT, note="nit")
    assert design_status(design) == Status.APPROVED


def test_anchors_survive_revisions_and_say_changed_since(crew, reviewed):
    design, review = reviewed
    bob = crew["bob"]
    on_oversubscription = services.comment_add(
        actor=bob,
        review=review,
        body="Why 1:1 at the spine?",
        anchor_kind=AnchorKind.SPEC,
        anchor_key="fabric.oversubscription.spine",
        design_id=design.pk,
    )
    on_pue = services.comment_add(
        actor=bob,
        review=review,
        body="Token count source?",
        anchor_kind="spec",
        anchor_key="workload.tokens_to_train",
        design_id=design.pk,
    )
    on_tco = services.comment_add(
        actor=bob,
        review=review,
        body="Facility power looks high",
        anchor_kind="headline",
        anchor_key="facility_power_kw",
        design_id=design.pk,
    )
    assert on_tco.anchor_value > 0 and on_tco.revision == design.latest_revision

    def change(spec):
        spec["fabric"]["oversubscription"]["spine"] = 3.0
        spec["facility"]["pue"] += 0.2

    revision = _new_revision(design, crew["alice"], change)
    evaluate(revision)
    changed = {t["comment"].pk: t["changed"] for t in threads(review)}
    assert changed[on_oversubscription.pk] is True
    assert changed[on_pue.pk] is False
    assert changed[on_tco.pk] is True  # a higher PUE: more facility power


def test_replies_resolve_reopen_and_mentions_notify_by_mail(
    crew, reviewed, django_capture_on_commit_callbacks, settings
):
    _design, review = reviewed
    settings.STUDIO_SITE_URL = "https://studio.example.org"
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        root = services.comment_add(actor=crew["bob"], review=review, body="Looks fine, @vera?")
    assert list(root.mentions.all()) == [crew["vera"]]
    assert Notification.objects.filter(user=crew["vera"], review=review).exists()
    assert any("vera@example.org" in m.to for m in mail.outbox)
    # A mail reader has no studio host: the link is absolute.
    assert f"https://studio.example.org/reviews/{review.pk}/" in mail.outbox[-1].body
    reply = services.comment_add(actor=crew["vera"], review=review, body="Yes", parent=root)
    assert reply.parent == root and reply.anchor_kind == root.anchor_kind
    services.comment_resolve(actor=crew["alice"], comment=root, resolved=True)
    root.refresh_from_db()
    assert root.resolved_at is not None and root.resolved_by == crew["alice"]
    services.comment_resolve(actor=crew["alice"], comment=root, resolved=False)
    root.refresh_from_db()
    assert root.resolved_at is None
    with pytest.raises(services.ReviewInvalid):
        services.comment_resolve(actor=crew["alice"], comment=reply, resolved=True)


def test_a_newer_review_of_the_same_design_supersedes_the_older(crew, reviewed):
    design, review = reviewed
    newer = services.review_request(
        actor=crew["alice"], project=design.project, designs=[design], reviewers=[crew["vera"]]
    )
    review.refresh_from_db()
    assert review.superseded_by == newer
    with pytest.raises(services.ReviewInvalid) as refused:
        services.comment_add(actor=crew["bob"], review=review, body="late")
    assert "superseded" in str(refused.value)


def test_request_refuses_outsiders_and_oneself(crew, reviewed, make_member):
    design, _ = reviewed
    outsider, _ = make_member("oscar", "Bravo")
    for reviewers, field in (
        ([outsider], "reviewers"),
        ([crew["alice"]], "reviewers"),
        ([], "reviewers"),
    ):
        with pytest.raises(services.ReviewInvalid) as refused:
            services.review_request(
                actor=crew["alice"], project=design.project, designs=[design], reviewers=reviewers
            )
        assert field in refused.value.errors


# ---- pages ----------------------------------------------------------------------------------


def test_request_page_inbox_and_badge(client, crew, design_in):
    design = design_in(crew["alice"], crew["team"])
    client.force_login(crew["alice"])
    url = f"/projects/{design.project.pk}/reviews/"
    assert client.get(url).status_code == 200
    response = client.post(url, {"designs": [design.pk], "reviewers": [crew["bob"].pk]})
    assert response.status_code == 302
    client.force_login(crew["bob"])
    inbox = client.get("/reviews/").content.decode()
    assert "Review of Design 1 r1" in inbox and 'id="review-badge"' in inbox


def test_request_page_bad_input_is_a_400_naming_the_field(client, crew, design_in):
    design = design_in(crew["alice"], crew["team"])
    client.force_login(crew["alice"])
    response = client.post(
        f"/projects/{design.project.pk}/reviews/", {"designs": [design.pk], "reviewers": []}
    )
    assert response.status_code == 400
    assert "err-reviewers" in response.content.decode()
    assert not design.review_requests.exists()


def test_comment_post_bad_anchor_is_a_400_naming_the_field(client, crew, reviewed):
    design, review = reviewed
    client.force_login(crew["bob"])
    url = f"/reviews/{review.pk}/comments/"
    cases = [
        ({"anchor_kind": "bogus"}, "About</strong>: one of: general, spec"),
        ({"anchor_kind": "headline", "anchor_key": "nonsense"}, "one of the headline metrics"),
        ({"anchor_kind": "spec", "anchor_key": "fabric.nope"}, "no field"),
        ({"anchor_kind": "chart", "anchor_key": "nope"}, "a chart of the design"),
        ({"design": "²"}, "An id"),
    ]
    for extra, message in cases:
        data = {"body": "hm", "anchor_kind": "general", "design": design.pk, **extra}
        response = client.post(url, data, HTTP_HX_REQUEST="true")
        assert response.status_code == 400, extra
        assert message in response.content.decode(), (extra, response.content[:300])
    assert not review.comments.exists()


def test_live_panel_is_204_until_something_changes(client, crew, reviewed):
    design, review = reviewed
    client.force_login(crew["alice"])
    stamp = live_stamp(review)
    assert client.get(f"/reviews/{review.pk}/live/?v={stamp}").status_code == 204
    client.force_login(crew["bob"])
    posted = client.post(
        f"/reviews/{review.pk}/comments/",
        {"body": "TCO?", "anchor_kind": "headline", "anchor_key": "tco_usd", "design": design.pk},
        HTTP_HX_REQUEST="true",
    )
    assert posted.status_code == 200 and "TCO?" in posted.content.decode()
    client.force_login(crew["alice"])
    response = client.get(f"/reviews/{review.pk}/live/?v={stamp}")
    assert response.status_code == 200 and "TCO?" in response.content.decode()


def test_viewers_comment_but_approve_only_when_the_owner_allows(client, crew, reviewed):
    design, review = reviewed
    client.force_login(crew["vera"])
    url = f"/reviews/{review.pk}/"
    assert (
        client.post(url + "comments/", {"body": "ok", "anchor_kind": "general"}).status_code == 302
    )
    assert client.post(url + "verdicts/", {"kind": "approve"}).status_code == 403
    assert client.post(url + "verdicts/", {"kind": "comment"}).status_code == 302
    # Only the owner sets the policy.
    policy_url = f"/projects/{design.project.pk}/review-policy/"
    assert (
        client.post(policy_url, {"required_approvals": 1, "viewers_may_approve": "on"}).status_code
        == 403
    )
    client.force_login(crew["alice"])
    bad = client.post(policy_url, {"required_approvals": 0})
    assert bad.status_code == 400
    assert (
        client.post(policy_url, {"required_approvals": 1, "viewers_may_approve": "on"}).status_code
        == 302
    )
    assert ReviewPolicy.objects.get(project=design.project).viewers_may_approve
    client.force_login(crew["vera"])
    assert client.post(url + "verdicts/", {"kind": "approve"}).status_code == 302
    assert design_status(design) == Status.APPROVED


def test_the_requester_cannot_approve_their_own_review(client, crew, reviewed):
    _, review = reviewed
    client.force_login(crew["alice"])
    response = client.post(
        f"/reviews/{review.pk}/verdicts/", {"kind": "approve"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400 and "you asked for this review" in response.content.decode()


def test_review_page_and_presenting_mode_render(client, crew, reviewed):
    design, review = reviewed
    client.force_login(crew["bob"])
    page = client.get(f"/reviews/{review.pk}/").content.decode()
    assert 'data-anchor-key="tco_usd"' in page and 'data-anchor-kind="spec"' in page
    assert 'hx-trigger="every 1s"' in page
    present = client.get(f"/reviews/{review.pk}/present/").content.decode()
    assert 'class="slide"' in present and f'id="what-if-{design.pk}"' in present
    design_page = client.get(f"/designs/{design.pk}/").content.decode()
    assert "in review" in design_page


def test_viewers_cannot_ask_for_reviews_and_reading_marks_notices_read(client, crew, reviewed):
    design, review = reviewed
    client.force_login(crew["vera"])
    url = f"/projects/{design.project.pk}/reviews/"
    assert client.get(url).status_code == 200
    posted = client.post(url, {"designs": [design.pk], "reviewers": [crew["bob"].pk]})
    assert posted.status_code == 403
    assert design.review_requests.count() == 1
    client.force_login(crew["bob"])
    assert Notification.objects.filter(user=crew["bob"], read_at__isnull=True).count() == 1
    client.get(f"/reviews/{review.pk}/")
    assert not Notification.objects.filter(user=crew["bob"], read_at__isnull=True).exists()


def test_resolving_a_reply_is_a_400_naming_the_thread(client, crew, reviewed):
    _, review = reviewed
    root = services.comment_add(actor=crew["bob"], review=review, body="root")
    reply = services.comment_add(actor=crew["alice"], review=review, body="reply", parent=root)
    client.force_login(crew["bob"])
    response = client.post(f"/comments/{reply.pk}/resolve/", {"resolved": "1"})
    assert response.status_code == 400 and "resolve the thread" in response.content.decode()
    bad = client.post(
        f"/comments/{root.pk}/resolve/", {"resolved": "maybe"}, HTTP_HX_REQUEST="true"
    )
    assert bad.status_code == 400 and "Resolved" in bad.content.decode()


def test_an_archived_design_is_not_offered_nor_reviewed(crew, design_in):
    from django.utils import timezone

    from studio.reviews.forms import ReviewRequestForm

    design = design_in(crew["alice"], crew["team"])
    design.archived_at = timezone.now()
    design.save(update_fields=["archived_at"])
    form = ReviewRequestForm(project=design.project, user=crew["alice"])
    assert list(form.fields["designs"].queryset) == []
    with pytest.raises(services.ReviewInvalid) as refused:
        services.review_request(
            actor=crew["alice"], project=design.project, designs=[design], reviewers=[crew["bob"]]
        )
    assert "archived" in refused.value.errors["designs"]


def test_the_compare_page_offers_a_review_of_the_comparison(client, crew, design_in):
    from studio.designs import services as design_services
    from tests.conftest import example_spec

    first = design_in(crew["alice"], crew["team"])
    second = design_services.design_create(
        actor=crew["alice"],
        project=first.project,
        name="Second",
        spec=example_spec("two-region-hierarchical"),
        message="test",
    )
    client.force_login(crew["alice"])
    page = client.get(f"/compare/?design={first.pk}&design={second.pk}").content.decode()
    link = f"/projects/{first.project.pk}/reviews/?design={first.pk}&amp;design={second.pk}"
    assert link in page
    form = client.get(link.replace("&amp;", "&")).content.decode()
    assert form.count("checked") >= 2


def _cards(page: str, marker: str) -> dict:
    """{metric key: (number, unit)} of the headline cards whose opening tag has `marker`."""
    found = re.findall(
        marker + r'[^>]*>.*?<div class="value">([^<]*)</div><div class="unit">([^<]*)</div>', page
    )
    return dict(found_key_value(m) for m in found)


def found_key_value(match: tuple) -> tuple:
    key, number, unit = match
    return key, (number, unit)


def test_review_cards_write_each_headline_number_as_the_design_page_does(client, crew, reviewed):
    """Seen side by side: the design page said 100.9 h and 716.1 kW, the review page and the
    presenting mode 101 h and 716 kW (and USD/GPU-h under one, a sentence under the other)."""
    design, review = reviewed
    client.force_login(crew["bob"])
    design_cards = _cards(
        client.get(f"/designs/{design.pk}/").content.decode(), r'data-metric="([a-z_0-9]+)"'
    )
    review_cards = _cards(
        client.get(f"/reviews/{review.pk}/").content.decode(),
        rf'data-anchor-id="headline-{design.pk}-([a-z_0-9]+)"',
    )
    assert len(design_cards) >= 12
    assert review_cards == design_cards
