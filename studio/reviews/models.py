"""Design reviews: a request to named team members to review a design (or a comparison of 2-4
designs), comments anchored to what they are about, verdicts per reviewer per revision, and the
notifications they send. A design's review status is derived from these rows (selectors), never
stored, so it cannot drift from the verdicts."""

from django.conf import settings
from django.db import models

MAX_REVIEW_DESIGNS = 4
MAX_REQUIRED_APPROVALS = 10


class ReviewPolicy(models.Model):
    """The project owner's rules for its reviews (a project without a row: the defaults)."""

    project = models.OneToOneField(
        "designs.Project", on_delete=models.CASCADE, related_name="review_policy"
    )
    required_approvals = models.PositiveSmallIntegerField(default=1)
    viewers_may_approve = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"review policy of {self.project}"


class ReviewKind(models.TextChoices):
    REVISION = "revision", "Revision"
    COMPARISON = "comparison", "Comparison"


class ReviewRequest(models.Model):
    project = models.ForeignKey(
        "designs.Project", on_delete=models.CASCADE, related_name="review_requests"
    )
    kind = models.CharField(max_length=12, choices=ReviewKind.choices)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    reviewers = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="reviews_requested")
    designs = models.ManyToManyField(
        "designs.Design", through="ReviewSubject", related_name="review_requests"
    )
    # A newer request on the same design(s) takes over; this one is kept, read-only.
    superseded_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="supersedes"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.title


class ReviewSubject(models.Model):
    """One design under review, with the revision it had when the review was asked for."""

    review = models.ForeignKey(ReviewRequest, on_delete=models.CASCADE, related_name="subjects")
    design = models.ForeignKey("designs.Design", on_delete=models.CASCADE, related_name="+")
    requested_revision = models.ForeignKey(
        "designs.DesignRevision", on_delete=models.CASCADE, related_name="+"
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["review", "design"], name="unique_review_design"),
        ]

    def __str__(self) -> str:
        return f"{self.design} in {self.review}"


class AnchorKind(models.TextChoices):
    GENERAL = "general", "The review as a whole"
    SPEC = "spec", "Spec field"
    HEADLINE = "headline", "Headline number"
    CHART = "chart", "Chart"
    BOM = "bom", "BOM line"
    FINDING = "finding", "Finding"


class Comment(models.Model):
    """A comment anchored to one item of one design (kind + key), made on a revision; the
    anchored value at that revision is kept to say "changed since" on later revisions."""

    review = models.ForeignKey(ReviewRequest, on_delete=models.CASCADE, related_name="comments")
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="replies"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    design = models.ForeignKey(
        "designs.Design", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    revision = models.ForeignKey(
        "designs.DesignRevision", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    anchor_kind = models.CharField(
        max_length=10, choices=AnchorKind.choices, default=AnchorKind.GENERAL
    )
    anchor_key = models.CharField(max_length=200, blank=True)
    anchor_value = models.JSONField(null=True, blank=True)
    body = models.TextField()
    mentions = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="+", blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["review", "updated_at"])]

    def __str__(self) -> str:
        return f"comment {self.pk} on {self.anchor_kind}:{self.anchor_key}"


class VerdictKind(models.TextChoices):
    APPROVE = "approve", "Approve"
    REQUEST_CHANGES = "changes", "Request changes"
    COMMENT = "comment", "Comment only"


class Verdict(models.Model):
    """One reviewer's verdict on one design at one revision. Never updated: a later verdict is
    a new row, and an approval of an earlier revision is stale (derived, not stored)."""

    review = models.ForeignKey(ReviewRequest, on_delete=models.CASCADE, related_name="verdicts")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    design = models.ForeignKey("designs.Design", on_delete=models.CASCADE, related_name="+")
    revision = models.ForeignKey(
        "designs.DesignRevision", on_delete=models.CASCADE, related_name="+"
    )
    kind = models.CharField(max_length=8, choices=VerdictKind.choices)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["review", "created_at"])]

    def __str__(self) -> str:
        return f"{self.kind} by {self.reviewer} on {self.design} r{self.revision.number}"


class Notification(models.Model):
    """An in-app notice for one user about one review (asked to review, mentioned, replied to,
    a verdict on a review they asked for); the same text goes out by e-mail."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_notifications"
    )
    review = models.ForeignKey(
        ReviewRequest, on_delete=models.CASCADE, related_name="notifications"
    )
    text = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["user", "read_at"])]

    def __str__(self) -> str:
        return self.text
