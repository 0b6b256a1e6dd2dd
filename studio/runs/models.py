"""Engine runs: the persisted outcome of evaluating one design revision. The broker never holds
the only copy of a result; the task writes it here."""

from django.conf import settings
from django.db import models


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class EngineRun(models.Model):
    revision = models.ForeignKey(
        "designs.DesignRevision", on_delete=models.CASCADE, related_name="runs"
    )
    spec_hash = models.CharField(max_length=64, db_index=True)
    engine_version = models.CharField(max_length=32)
    # Everything besides the spec that the engines read (the team's catalog entries, the
    # design's accepted risks): a cached result is reused only when all of it is the same.
    inputs_fingerprint = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED)
    # {"engines": [...names in order...], "completed": [...], "current": name}
    progress = models.JSONField(default=dict, blank=True)
    results = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    cached_from = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["spec_hash", "engine_version", "status"])]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.revision} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in (RunStatus.DONE, RunStatus.FAILED)

    @property
    def duration_s(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None
