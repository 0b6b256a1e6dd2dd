"""A team's own catalog entries (custom SKUs, negotiated prices), validated by the engine's
catalog models and added to the built-in catalog when the team's designs are evaluated."""

from django.conf import settings
from django.db import models

from models_engine import KINDS

KIND_CHOICES = [(kind, kind.replace("_", " ")) for kind in KINDS]


class TeamCatalogEntry(models.Model):
    team = models.ForeignKey(
        "accounts.Team", on_delete=models.CASCADE, related_name="catalog_entries"
    )
    kind = models.CharField(max_length=32, choices=KIND_CHOICES)
    entry_id = models.CharField(max_length=80)
    data = models.JSONField(help_text="The entry as the engine's catalog model validates it.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["kind", "entry_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "kind", "entry_id"], name="unique_team_catalog_entry"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.team}: {self.kind}/{self.entry_id}"
