"""Projects hold designs; a design holds immutable, hashed revisions of its spec."""

from django.conf import settings
from django.db import models


class Project(models.Model):
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="projects")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Archived: hidden from lists by default, kept whole (restore brings it back as it was).
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["team", "name"], name="unique_project_name_per_team"),
        ]

    def __str__(self) -> str:
        return self.name


class Design(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="designs")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "name"], name="unique_design_name_per_project"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def latest_revision(self) -> "DesignRevision | None":
        return self.revisions.order_by("-number").first()


class DesignRevision(models.Model):
    """Never updated after creation: an edit is a new revision."""

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    spec = models.JSONField()
    spec_hash = models.CharField(max_length=64, db_index=True)
    message = models.CharField(max_length=500, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["design", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["design", "number"], name="unique_revision_number"),
        ]

    def __str__(self) -> str:
        return f"{self.design} r{self.number}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("Design revisions are immutable; create a new revision instead")
        super().save(*args, **kwargs)


class DesignDraft(models.Model):
    """Unsaved editor input, per user and design, kept as the raw form so nothing typed is lost
    (not even a value that does not validate yet)."""

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="drafts")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    form_data = models.JSONField(default=dict)
    base_revision = models.ForeignKey(
        DesignRevision, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["design", "user"], name="unique_draft_per_user"),
        ]

    def __str__(self) -> str:
        return f"draft of {self.design} by {self.user}"


class AcceptedRisk(models.Model):
    """A security finding the design's owners accept, with why, who answers for it and until
    when. Expired acceptances stop applying; revoking keeps the row for the audit trail."""

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="accepted_risks")
    check_id = models.CharField(max_length=32)
    reason = models.TextField()
    owner = models.CharField(max_length=200, help_text="Who answers for this risk.")
    expires = models.DateField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["check_id", "-created_at"]

    def __str__(self) -> str:
        return f"{self.check_id} accepted on {self.design} until {self.expires}"

    def as_engine_input(self) -> dict:
        return {
            "check_id": self.check_id,
            "reason": self.reason,
            "owner": self.owner,
            "expires": self.expires.isoformat(),
        }
