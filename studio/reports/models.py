"""Reports: immutable snapshots of a project's designs, their results and the roadmap.

A report copies what it shows (each covered revision's spec hash, engine version, stored results
and headline; the roadmap's stored JSON) when it is created, so editing or re-evaluating a
design later never changes a report or its PDF. Only the PDF fields change after creation, and
only through `services.report_pdf_*` (the snapshot fields are refused by `save`)."""

from django.conf import settings
from django.db import models

SNAPSHOT_FIELDS = ("project_id", "title", "summary", "author_id", "covers", "baseline", "roadmap")


class PdfStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Building"
    DONE = "done", "Ready"
    FAILED = "failed", "Failed"


class Report(models.Model):
    project = models.ForeignKey("designs.Project", on_delete=models.CASCADE, related_name="reports")
    title = models.CharField(max_length=200)
    summary = models.TextField(blank=True)  # the author's executive summary
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # [{design_id, design_name, revision_id, revision_number, spec_hash, engine_version,
    #   run_id, results, headline}] in the order picked; the first is the primary design.
    covers = models.JSONField()
    baseline = models.JSONField(null=True, blank=True)  # same shape, the "as-is" design
    roadmap = models.JSONField(null=True, blank=True)  # RoadmapResult.to_json() of the primary
    roadmap_error = models.TextField(blank=True)
    pdf = models.BinaryField(null=True, blank=True, editable=False)
    pdf_status = models.CharField(
        max_length=10, choices=PdfStatus.choices, default=PdfStatus.QUEUED
    )
    pdf_error = models.TextField(blank=True)
    pdf_pages = models.PositiveIntegerField(null=True, blank=True)
    pdf_built_at = models.DateTimeField(null=True, blank=True)
    pdf_seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.title} ({self.project})"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("update_fields"):
            raise ValueError("Reports are immutable; only the PDF fields are updated")
        if self.pk is not None and set(kwargs["update_fields"]) & {
            f.removesuffix("_id") for f in SNAPSHOT_FIELDS
        }:
            raise ValueError("Reports are immutable; only the PDF fields are updated")
        super().save(*args, **kwargs)

    @property
    def primary(self) -> dict:
        return self.covers[0]

    @property
    def engine_versions(self) -> list[str]:
        return sorted({c.get("engine_version", "") for c in self.covers} - {""})


class ChartSvg(models.Model):
    """A chart as printed (SVG from kaleido), keyed by a digest of the printed figure and of
    what draws it (chart code, plotly, kaleido). A stored run's figures never change, so a
    figure printed once is not sent to chromium again (see `studio.reports.svg_cache`)."""

    key = models.CharField(max_length=64, unique=True)
    svg = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"chart SVG {self.key[:12]}"
