"""Every write of reviews, each with its audit row in the same transaction; notices go to the
people concerned in the app and by e-mail (sent after the commit, never inside it)."""

import logging
import re
import smtplib

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from studio.accounts.models import Membership
from studio.core.audit import audit_record
from studio.core.errors import DomainError
from studio.designs.models import Design, Project
from studio.reviews.anchors import AnchorInvalid, RevisionView, checked_anchor
from studio.reviews.models import (
    MAX_REQUIRED_APPROVALS,
    MAX_REVIEW_DESIGNS,
    AnchorKind,
    Comment,
    Notification,
    ReviewKind,
    ReviewPolicy,
    ReviewRequest,
    ReviewSubject,
    Verdict,
    VerdictKind,
)
from studio.reviews.selectors import may_approve
from studio.runs.figures import run_figure_sections

logger = logging.getLogger(__name__)

MAX_COMMENT = 10_000
MENTION = re.compile(r"(?<![\w@])@([\w.+-]+)")


class ReviewInvalid(DomainError):
    """A review write refused; `errors` maps each field at fault to what is allowed."""

    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        self.field = next(iter(errors))
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))


def _team_members(project: Project):
    return Membership.objects.filter(team_id=project.team_id).select_related("user")


def _default_title(designs: list[Design]) -> str:
    if len(designs) == 1:
        revision = designs[0].latest_revision
        return f"Review of {designs[0].name} r{revision.number}"
    return "Comparison: " + " vs ".join(d.name for d in designs)


def _check_request(project: Project, designs: list[Design], reviewers: list, actor) -> None:
    errors = {}
    if not 1 <= len(designs) <= MAX_REVIEW_DESIGNS:
        errors["designs"] = f"pick one design, or 2 to {MAX_REVIEW_DESIGNS} to compare"
    elif len({d.pk for d in designs}) != len(designs):
        errors["designs"] = "each design can be picked once"
    elif any(d.project_id != project.pk for d in designs):
        errors["designs"] = "every design must belong to this project"
    elif any(d.archived_at is not None for d in designs):
        errors["designs"] = "an archived design cannot be reviewed: restore it first"
    elif any(d.latest_revision is None for d in designs):
        errors["designs"] = "every design needs a saved revision"
    members = {m.user_id for m in _team_members(project)}
    if not reviewers:
        errors["reviewers"] = "ask at least one team member"
    elif any(r.pk not in members for r in reviewers):
        errors["reviewers"] = "reviewers must be members of the project's team"
    elif any(r.pk == actor.pk for r in reviewers):
        errors["reviewers"] = "ask someone other than yourself"
    if errors:
        raise ReviewInvalid(errors)


@transaction.atomic
def review_request(
    *,
    actor,
    project: Project,
    designs: list[Design],
    reviewers: list,
    title: str = "",
    description: str = "",
) -> ReviewRequest:
    """Ask `reviewers` to review one design (its latest revision) or compare 2-4. An open
    review of exactly the same designs is superseded by the new one."""
    _check_request(project, designs, reviewers, actor)
    review = ReviewRequest.objects.create(
        project=project,
        kind=ReviewKind.REVISION if len(designs) == 1 else ReviewKind.COMPARISON,
        title=(title.strip() or _default_title(designs))[:200],
        description=description.strip()[:MAX_COMMENT],
        requested_by=actor,
    )
    ReviewSubject.objects.bulk_create(
        ReviewSubject(review=review, design=d, requested_revision=d.latest_revision, position=i)
        for i, d in enumerate(designs)
    )
    review.reviewers.set(reviewers)
    _supersede_older(review, {d.pk for d in designs})
    audit_record(
        actor=actor,
        team=project.team,
        action="review.request",
        target=review,
        data={
            "revisions": [d.latest_revision.pk for d in designs],
            "reviewers": [r.get_username() for r in reviewers],
        },
    )
    who = actor.get_username()
    _notify(reviewers, review, f"{who} asks you to review “{review.title}”")
    return review


def _supersede_older(review: ReviewRequest, design_ids: set[int]) -> None:
    older = ReviewRequest.objects.filter(
        project=review.project, superseded_by__isnull=True, created_at__lte=review.created_at
    ).exclude(pk=review.pk)
    for other in older.prefetch_related("subjects"):
        if {s.design_id for s in other.subjects.all()} == design_ids:
            ReviewRequest.objects.filter(pk=other.pk).update(superseded_by=review)


def _open(review: ReviewRequest) -> None:
    if review.superseded_by_id:
        raise ReviewInvalid(
            {"review": f"this review was superseded by review #{review.superseded_by_id}"}
        )


def _subject_design(review: ReviewRequest, design_id: int | None) -> Design:
    subjects = {s.design_id: s.design for s in review.subjects.select_related("design")}
    if design_id is None and len(subjects) == 1:
        return next(iter(subjects.values()))
    if design_id not in subjects:
        names = ", ".join(f"{d.pk} ({d.name})" for d in subjects.values())
        raise ReviewInvalid({"design": f"one of the designs under review: {names}"})
    return subjects[design_id]


def _chart_ids(view: RevisionView) -> set[str]:
    run = view.revision.runs.filter(status="done").order_by("-finished_at").first()
    if run is None or view.results is None:
        return set()
    return {f["id"] for s in run_figure_sections(run, view.results) for f in s["figures"]}


def _anchor(review, design_id, kind: str, key: str) -> tuple[Design | None, object, object]:
    """(design, its latest revision, the anchored value) of a new top-level comment."""
    if kind not in AnchorKind.values:
        raise ReviewInvalid({"anchor_kind": f"one of {', '.join(AnchorKind.values)}"})
    if kind == AnchorKind.GENERAL and design_id is None:
        return None, None, None
    design = _subject_design(review, design_id)
    view = RevisionView.of(design.latest_revision)
    try:
        value = checked_anchor(view, kind, key)
    except AnchorInvalid as exc:
        raise ReviewInvalid({"anchor_key": str(exc)}) from exc
    if kind == AnchorKind.CHART and key not in _chart_ids(view):
        raise ReviewInvalid({"anchor_key": "a chart of the design's latest results"})
    return design, view.revision, value


def _mentioned(review: ReviewRequest, body: str) -> list:
    names = set(MENTION.findall(body))
    if not names:
        return []
    return [m.user for m in _team_members(review.project) if m.user.get_username() in names]


@transaction.atomic
def comment_add(
    *,
    actor,
    review: ReviewRequest,
    body: str,
    anchor_kind: str = AnchorKind.GENERAL,
    anchor_key: str = "",
    design_id: int | None = None,
    parent: Comment | None = None,
) -> Comment:
    """A comment on an anchored item (or a reply: it joins its thread's anchor)."""
    _open(review)
    body = body.strip()
    if not body or len(body) > MAX_COMMENT:
        raise ReviewInvalid({"body": f"write 1 to {MAX_COMMENT:,} characters"})
    if parent is not None:
        if parent.review_id != review.pk:
            raise ReviewInvalid({"parent": "a comment of this review"})
        parent = parent.parent or parent  # threads are one level deep
        design, revision = parent.design, parent.revision
        anchor_kind, anchor_key, value = parent.anchor_kind, parent.anchor_key, parent.anchor_value
    else:
        design, revision, value = _anchor(review, design_id, anchor_kind, anchor_key.strip())
    comment = Comment.objects.create(
        review=review,
        parent=parent,
        author=actor,
        design=design,
        revision=revision,
        anchor_kind=anchor_kind,
        anchor_key=anchor_key.strip() if anchor_kind != AnchorKind.GENERAL else "",
        anchor_value=value,
        body=body,
    )
    mentioned = _mentioned(review, body)
    comment.mentions.set(mentioned)
    audit_record(
        actor=actor,
        team=review.project.team,
        action="review.comment",
        target=comment,
        data={
            "review": review.pk,
            "anchor": f"{comment.anchor_kind}:{comment.anchor_key}",
            "revision": revision.pk if revision else None,
            "parent": parent.pk if parent else None,
            "mentions": [u.get_username() for u in mentioned],
        },
    )
    who = actor.get_username()
    _notify(mentioned, review, f"{who} mentioned you in “{review.title}”", skip=actor)
    others = [parent.author] if parent and parent.author else []
    others += [review.requested_by] if review.requested_by else []
    _notify(
        [u for u in others if u not in mentioned],
        review,
        f"{who} commented on “{review.title}”",
        skip=actor,
    )
    return comment


@transaction.atomic
def comment_resolve(*, actor, comment: Comment, resolved: bool) -> Comment:
    if comment.parent_id is not None:
        raise ReviewInvalid({"comment": "resolve the thread (its first comment), not a reply"})
    _open(comment.review)
    comment.resolved_at = timezone.now() if resolved else None
    comment.resolved_by = actor if resolved else None
    comment.save(update_fields=["resolved_at", "resolved_by", "updated_at"])
    audit_record(
        actor=actor,
        team=comment.review.project.team,
        action="review.comment.resolve" if resolved else "review.comment.reopen",
        target=comment,
        data={"review": comment.review_id},
    )
    return comment


@transaction.atomic
def verdict_give(
    *, actor, review: ReviewRequest, kind: str, note: str = "", design_id: int | None = None
) -> list[Verdict]:
    """The reviewer's verdict on the latest revision of one design under review, or of every
    one (`design_id` None). Approving or requesting changes needs an editor, or a viewer where
    the project's owner allows it; nobody approves a review they asked for."""
    _open(review)
    if kind not in VerdictKind.values:
        raise ReviewInvalid({"kind": f"one of {', '.join(VerdictKind.values)}"})
    if kind != VerdictKind.COMMENT:
        if not may_approve(actor, review.project):
            raise PermissionDenied(
                "Viewers can comment, but only editors approve or request changes in this "
                "project (its owner can allow viewers to)."
            )
        if review.requested_by_id == actor.pk:
            raise ReviewInvalid({"kind": "you asked for this review: a reviewer decides it"})
    if len(note) > MAX_COMMENT:
        raise ReviewInvalid({"note": f"at most {MAX_COMMENT:,} characters"})
    subjects = review.subjects.select_related("design")
    designs = (
        [s.design for s in subjects] if design_id is None else [_subject_design(review, design_id)]
    )
    verdicts = [
        Verdict.objects.create(
            review=review,
            reviewer=actor,
            design=design,
            revision=design.latest_revision,
            kind=kind,
            note=note.strip(),
        )
        for design in designs
    ]
    audit_record(
        actor=actor,
        team=review.project.team,
        action="review.verdict",
        target=review,
        data={"kind": kind, "revisions": [v.revision_id for v in verdicts], "note": note.strip()},
    )
    label = VerdictKind(kind).label.lower()
    _notify(
        [review.requested_by] if review.requested_by else [],
        review,
        f"{actor.get_username()}: {label} on “{review.title}”",
        skip=actor,
    )
    return verdicts


@transaction.atomic
def policy_set(
    *, actor, project: Project, required_approvals: int, viewers_may_approve: bool
) -> ReviewPolicy:
    if not 1 <= required_approvals <= MAX_REQUIRED_APPROVALS:
        raise ReviewInvalid(
            {"required_approvals": f"a whole number from 1 to {MAX_REQUIRED_APPROVALS}"}
        )
    policy, _ = ReviewPolicy.objects.update_or_create(
        project=project,
        defaults={
            "required_approvals": required_approvals,
            "viewers_may_approve": viewers_may_approve,
        },
    )
    audit_record(
        actor=actor,
        team=project.team,
        action="review.policy",
        target=project,
        data={
            "required_approvals": required_approvals,
            "viewers_may_approve": viewers_may_approve,
        },
    )
    return policy


def notifications_read(*, user, review: ReviewRequest | None = None) -> int:
    unread = Notification.objects.filter(user=user, read_at__isnull=True)
    if review is not None:
        unread = unread.filter(review=review)
    return unread.update(read_at=timezone.now())


def _notify(users, review: ReviewRequest, text: str, skip=None) -> None:
    """In-app notices now; the e-mails once the change is committed."""
    users = [u for u in dict.fromkeys(users) if skip is None or u.pk != skip.pk]
    Notification.objects.bulk_create(
        Notification(user=u, review=review, text=text[:300]) for u in users
    )
    addresses = [u.email for u in users if u.email]
    if addresses:
        link = settings.STUDIO_SITE_URL + reverse("review-detail", args=[review.pk])
        transaction.on_commit(lambda: _send(addresses, text, link))


def _send(addresses: list[str], text: str, link: str) -> None:
    body = f"{text}\n\nOpen the review in Cluster Studio: {link}\n"
    for address in addresses:
        try:
            send_mail(f"[Cluster Studio] {text}"[:150], body, None, [address])
        except (OSError, smtplib.SMTPException):
            logger.warning("review notice to %s failed", address, exc_info=True)
