"""Engine runs: the persisted outcome of evaluating one design revision. The broker never holds
the only copy of a result; the task writes it here.

The run row is also the outbox of its Celery message: a queued run with no `enqueued_at` has not
reached the broker yet, and the reaper (`studio.runs.services.runs_reap`) sends it again; a
running run whose `heartbeat_at` stopped moving lost its worker, and the reaper retries it
(`attempts` counts executions) or fails it with the reason."""

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone


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
    # The results page's Plotly figures, built once from `results` ({"version", "sections"}):
    # pages read them instead of rebuilding every chart per request.
    figures = models.JSONField(null=True, blank=True)
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
    # Outbox: when the run (last) became queued, and when its message last reached the broker
    # (None: not sent yet, e.g. the broker was down at commit time).
    queued_at = models.DateTimeField(null=True, blank=True, default=timezone.now)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    enqueue_attempts = models.PositiveIntegerField(default=0)
    # Executions started (a worker claimed the run); bounded by settings.RUNS_MAX_ATTEMPTS.
    attempts = models.PositiveSmallIntegerField(default=0)
    # Written by the executing worker while it runs; stale means the worker died.
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["spec_hash", "engine_version", "status"]),
            # The reaper's sweep: unfinished runs only, a handful at any time.
            models.Index(
                fields=["status"],
                name="runs_unfinished_idx",
                condition=models.Q(status__in=["queued", "running"]),
            ),
        ]

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

    def elapsed_s(self, now: datetime | None = None) -> int | None:
        """Seconds spent in the current state: queued (waiting) or running."""
        now = now or timezone.now()
        since = {
            RunStatus.QUEUED: self.queued_at or self.created_at,
            RunStatus.RUNNING: self.started_at,
        }.get(self.status)
        return max(0, int((now - since).total_seconds())) if since else None

    def silent_s(self, now: datetime | None = None) -> int | None:
        """Seconds since the worker running this run last wrote its heartbeat."""
        if self.status != RunStatus.RUNNING:
            return None
        beat = self.heartbeat_at or self.started_at
        return max(0, int(((now or timezone.now()) - beat).total_seconds())) if beat else None

    def is_stuck(self, now: datetime | None = None) -> bool:
        """Running without a heartbeat, or queued and never sent (or never picked up): the
        reaper will retry or fail it; the page says so and offers Retry."""
        now = now or timezone.now()
        if self.status == RunStatus.RUNNING:
            beat = self.heartbeat_at or self.started_at
            return bool(beat) and (now - beat).total_seconds() > settings.RUNS_HEARTBEAT_STALE_S
        if self.status == RunStatus.QUEUED:
            waited = (now - (self.queued_at or self.created_at)).total_seconds()
            if self.enqueued_at is None:
                return waited > settings.RUNS_UNSENT_GRACE_S
            return waited > settings.RUNS_RESEND_AFTER_S
        return False


class ComparisonFigures(models.Model):
    """The compare page's figures for one comparison: the same designs' results, the same design
    names, the same chart code (`key`, a digest of all three). Immutable like the results they
    come from: other results, a rename or new chart code is another key. Built once, then read
    by every web process (studio.runs.figures.compared_figures)."""

    key = models.CharField(max_length=64, unique=True)
    figures = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"comparison figures {self.key[:12]}"


class SweepStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    REDUCING = "reducing", "Reducing"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


SWEEP_ACTIVE = (SweepStatus.QUEUED, SweepStatus.RUNNING, SweepStatus.REDUCING)


class Sweep(models.Model):
    """Many variants of one design revision (models_engine.SweepDefinition), evaluated in
    chunks on Celery. `chunks_done` is the counter the chunks increment in one UPDATE; the chunk
    that makes it equal `chunk_count` runs the reduction into `summary`."""

    design = models.ForeignKey("designs.Design", on_delete=models.CASCADE, related_name="sweeps")
    revision = models.ForeignKey(
        "designs.DesignRevision", on_delete=models.CASCADE, related_name="sweeps"
    )
    name = models.CharField(max_length=120, blank=True)
    definition = models.JSONField()
    total_variants = models.BigIntegerField()
    chunk_count = models.PositiveIntegerField()
    chunks_done = models.PositiveIntegerField(default=0)
    variants_done = models.BigIntegerField(default=0)
    status = models.CharField(
        max_length=10, choices=SweepStatus.choices, default=SweepStatus.QUEUED
    )
    summary = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Last time a chunk finished (or the reduction started): the reaper's clock for a stall.
    progress_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"sweep {self.pk} of {self.design} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in SWEEP_ACTIVE

    @property
    def progress_pct(self) -> int:
        return int(100 * self.variants_done / self.total_variants) if self.total_variants else 0


class SweepChunk(models.Model):
    """Variants [start, stop) of a sweep: claimed by one worker at a time, results stored as
    the engine's compressed columns (models_engine.SweepChunkColumns.to_bytes)."""

    sweep = models.ForeignKey(Sweep, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    start = models.BigIntegerField()
    stop = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    data = models.BinaryField(null=True, blank=True)
    error = models.TextField(blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["sweep", "number"]
        constraints = [
            models.UniqueConstraint(fields=["sweep", "number"], name="sweep_chunk_number_unique")
        ]

    def __str__(self) -> str:
        return f"chunk {self.number} of sweep {self.sweep_id} ({self.status})"
