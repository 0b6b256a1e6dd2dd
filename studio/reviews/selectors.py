"""Reads of reviews, scoped to the user's teams, and the review status derived from verdicts.

Status of a review for one design (`design_state`): "changes requested" when a reviewer's
latest decisive verdict (approve or request changes) is a request for changes on the design's
latest revision; "approved" when at least the project's required number of reviewers approved
the latest revision; otherwise "in review". An approval of an earlier revision is stale: it is
shown, but not counted. A review taken over by a newer one on the same design is "superseded";
a design under no review is a "draft"."""

import hashlib
from dataclasses import dataclass, field

from django.db.models import Count, Max, OuterRef, Q, QuerySet, Subquery

from studio.accounts.models import Membership, Role
from studio.designs.models import Design, DesignRevision
from studio.reviews.anchors import anchor_label
from studio.reviews.models import (
    Comment,
    ReviewPolicy,
    ReviewRequest,
    ReviewSubject,
    Verdict,
    VerdictKind,
)


class Status:
    DRAFT = "draft"
    IN_REVIEW = "in review"
    CHANGES_REQUESTED = "changes requested"
    APPROVED = "approved"
    SUPERSEDED = "superseded"


def latest_revision_id_subquery(design_field: str) -> Subquery:
    latest = DesignRevision.objects.filter(design=OuterRef(design_field)).order_by("-number")
    return Subquery(latest.values("pk")[:1])


def reviews_visible_to(user) -> QuerySet[ReviewRequest]:
    if not user.is_authenticated:
        return ReviewRequest.objects.none()
    return ReviewRequest.objects.filter(project__team__memberships__user=user).select_related(
        "project", "project__team", "requested_by"
    )


def comments_visible_to(user) -> QuerySet[Comment]:
    if not user.is_authenticated:
        return Comment.objects.none()
    return Comment.objects.filter(review__project__team__memberships__user=user).select_related(
        "review", "review__project"
    )


def policy_of(project) -> ReviewPolicy:
    """The project's policy; the defaults (one approval, viewers may not approve) if unset."""
    return ReviewPolicy.objects.filter(project=project).first() or ReviewPolicy(project=project)


def may_approve(user, project) -> bool:
    membership = Membership.objects.filter(user=user, team_id=project.team_id).first()
    if membership is None:
        return False
    return membership.allows(Role.EDITOR) or policy_of(project).viewers_may_approve


@dataclass
class ReviewerVerdict:
    reviewer: object
    verdict: Verdict | None  # the latest decisive one (approve / request changes)
    stale: bool = False


@dataclass
class DesignState:
    design: Design
    latest: DesignRevision | None
    status: str
    approvals: int
    required: int
    reviewers: list[ReviewerVerdict] = field(default_factory=list)


def _decisive(verdicts: list[Verdict]) -> dict[int, Verdict]:
    """Each reviewer's latest approve / request-changes verdict (comments do not change it)."""
    latest: dict[int, Verdict] = {}
    for verdict in verdicts:  # in creation order
        if verdict.kind != VerdictKind.COMMENT:
            latest[verdict.reviewer_id] = verdict
    return latest


def design_state(review: ReviewRequest, design: Design, verdicts: list[Verdict]) -> DesignState:
    latest = design.latest_revision
    required = policy_of(review.project).required_approvals
    decisive = _decisive([v for v in verdicts if v.design_id == design.pk])
    current = {r: v for r, v in decisive.items() if latest and v.revision_id == latest.pk}
    approvals = sum(1 for v in current.values() if v.kind == VerdictKind.APPROVE)
    if review.superseded_by_id:
        status = Status.SUPERSEDED
    elif any(v.kind == VerdictKind.REQUEST_CHANGES for v in current.values()):
        status = Status.CHANGES_REQUESTED
    elif approvals >= required:
        status = Status.APPROVED
    else:
        status = Status.IN_REVIEW
    reviewers = [
        ReviewerVerdict(
            reviewer=user,
            verdict=decisive.get(user.pk),
            stale=user.pk in decisive and user.pk not in current,
        )
        for user in _people(review, decisive)
    ]
    return DesignState(design, latest, status, approvals, required, reviewers)


def _people(review: ReviewRequest, decisive: dict[int, Verdict]) -> list:
    """The requested reviewers, then anyone else who gave a verdict."""
    people = list(review.reviewers.order_by("username"))
    known = {u.pk for u in people}
    people += [v.reviewer for v in decisive.values() if v.reviewer_id not in known]
    return people


def review_states(review: ReviewRequest) -> list[DesignState]:
    verdicts = list(review.verdicts.select_related("reviewer", "revision"))
    return [
        design_state(review, s.design, verdicts) for s in review.subjects.select_related("design")
    ]


def review_status(states: list[DesignState]) -> str:
    """A comparison is approved when every design is; changes on any design are requested."""
    statuses = {s.status for s in states}
    for status in (Status.SUPERSEDED, Status.CHANGES_REQUESTED, Status.IN_REVIEW):
        if status in statuses:
            return status
    return Status.APPROVED if statuses else Status.DRAFT


def newest_review_of(design: Design) -> ReviewRequest | None:
    """The newest review covering the design that no later one took over."""
    open_reviews = design.review_requests.filter(superseded_by__isnull=True)
    return open_reviews.order_by("-created_at", "-pk").first()


def design_status(design: Design) -> str:
    """The status of the newest review covering the design; "draft" when there is none."""
    review = newest_review_of(design)
    if review is None:
        return Status.DRAFT
    verdicts = list(review.verdicts.filter(design=design))
    return design_state(review, design, verdicts).status


def awaiting(user) -> QuerySet[ReviewRequest]:
    """Open reviews that ask this user to review (in their teams), newest first."""
    return reviews_visible_to(user).filter(reviewers=user, superseded_by__isnull=True).distinct()


def inbox_of(user) -> list[dict]:
    """The reviews awaiting this user, each with whether they owe a verdict on the latest
    revision of every design in it (the badge counts those)."""
    rows = []
    for review in awaiting(user).prefetch_related("subjects__design"):
        states = review_states(review)
        owed = any(
            not any(r.reviewer.pk == user.pk and r.verdict and not r.stale for r in state.reviewers)
            for state in states
        )
        rows.append({"review": review, "status": review_status(states), "owed": owed})
    return rows


def owed_count(user) -> int:
    """How many open reviews ask this user for a verdict they have not given on the latest
    revision of every design in them (the nav badge; three queries whatever the count)."""
    if not user.is_authenticated:
        return 0
    subjects = ReviewSubject.objects.filter(review__in=awaiting(user)).annotate(
        latest_id=latest_revision_id_subquery("design_id")
    )
    pairs = list(subjects.values_list("review_id", "design_id", "latest_id"))
    given = set(
        Verdict.objects.filter(reviewer=user, review_id__in={p[0] for p in pairs})
        .exclude(kind=VerdictKind.COMMENT)
        .values_list("review_id", "design_id", "revision_id")
    )
    return len(
        {review for review, design, latest in pairs if (review, design, latest) not in given}
    )


def open_comments(review: ReviewRequest) -> QuerySet[Comment]:
    return review.comments.filter(parent__isnull=True, resolved_at__isnull=True)


def live_stamp(review: ReviewRequest) -> str:
    """Changes whenever a comment or verdict is added or changed, or a design under review
    gets a new revision: the live panel's version (three small indexed queries)."""
    comments = Comment.objects.filter(review=review).aggregate(n=Count("pk"), at=Max("updated_at"))
    verdicts = Verdict.objects.filter(review=review).aggregate(n=Count("pk"))
    revisions = DesignRevision.objects.filter(design__review_requests=review).aggregate(
        last=Max("pk")
    )
    parts = (comments, verdicts, revisions, review.superseded_by_id)
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def _anchor_text(comment: Comment) -> str:
    if not comment.anchor_key:
        return "General"
    label = anchor_label(comment.anchor_kind, comment.anchor_key)
    return f"{comment.get_anchor_kind_display()}: {label}"


def signoff_of(design: Design) -> dict | None:
    """What a report's sign-off page keeps of a design's newest review: reviewers, verdicts,
    dates, the revision each approved (stale or current) and the open comments."""
    review = newest_review_of(design)
    if review is None:
        return None
    verdicts = list(review.verdicts.filter(design=design).select_related("reviewer", "revision"))
    state = design_state(review, design, verdicts)
    comments = open_comments(review).filter(Q(design=design) | Q(design__isnull=True))
    return {
        "review_id": review.pk,
        "review_title": review.title,
        "status": state.status,
        "approvals": state.approvals,
        "required": state.required,
        "latest_revision": state.latest.number if state.latest else None,
        "reviewers": [
            {
                "name": r.reviewer.get_username(),
                "verdict": r.verdict.get_kind_display() if r.verdict else "no verdict yet",
                "date": r.verdict.created_at.date().isoformat() if r.verdict else "",
                "revision": r.verdict.revision.number if r.verdict else None,
                "stale": r.stale,
            }
            for r in state.reviewers
        ],
        "open_comments": [
            {
                "author": c.author.get_username() if c.author else "",
                "anchor": _anchor_text(c),
                "body": c.body,
                "date": c.created_at.date().isoformat(),
                "revision": c.revision.number if c.revision else None,
            }
            for c in comments.select_related("author", "revision")
        ],
    }
