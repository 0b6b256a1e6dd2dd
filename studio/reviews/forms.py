"""Forms of the review pages: they validate the post; the services decide what is allowed."""

import math

from django import forms
from django.contrib.auth import get_user_model

from studio.core.inputs import IdField
from studio.reviews.models import (
    MAX_REQUIRED_APPROVALS,
    MAX_REVIEW_DESIGNS,
    AnchorKind,
    VerdictKind,
)
from studio.reviews.services import MAX_COMMENT
from studio.reviews.whatif import gpu_choices


class ReviewRequestForm(forms.Form):
    designs = forms.ModelMultipleChoiceField(
        queryset=None,
        widget=forms.CheckboxSelectMultiple,
        help_text=f"One design (its latest revision), or 2-{MAX_REVIEW_DESIGNS} to compare.",
    )
    reviewers = forms.ModelMultipleChoiceField(queryset=None, widget=forms.CheckboxSelectMultiple)
    title = forms.CharField(
        max_length=200, required=False, help_text="Optional; named after the designs otherwise."
    )
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=MAX_COMMENT
    )

    def __init__(self, *args, project, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["designs"].queryset = project.designs.filter(
            revisions__isnull=False, archived_at__isnull=True
        ).distinct()
        self.fields["reviewers"].queryset = (
            get_user_model()
            .objects.filter(memberships__team_id=project.team_id)
            .exclude(pk=user.pk)
            .order_by("username")
        )
        self.fields["reviewers"].label_from_instance = lambda u: u.get_username()


class CommentForm(forms.Form):
    body = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=MAX_COMMENT)
    anchor_kind = forms.ChoiceField(
        choices=AnchorKind.choices,
        initial=AnchorKind.GENERAL,
        label="About",
        error_messages={"invalid_choice": f"one of: {', '.join(AnchorKind.values)}"},
    )
    anchor_key = forms.CharField(max_length=200, required=False, label="Item")
    design = IdField(required=False)
    parent = IdField(required=False)


class VerdictForm(forms.Form):
    kind = forms.ChoiceField(
        choices=VerdictKind.choices,
        label="Verdict",
        error_messages={"invalid_choice": f"one of: {', '.join(VerdictKind.values)}"},
    )
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=MAX_COMMENT
    )
    design = IdField(required=False)


class ResolveForm(forms.Form):
    resolved = forms.TypedChoiceField(
        choices=[("1", "resolve"), ("0", "reopen")], coerce=lambda v: v == "1"
    )


class PolicyForm(forms.Form):
    required_approvals = forms.IntegerField(min_value=1, max_value=MAX_REQUIRED_APPROVALS)
    viewers_may_approve = forms.BooleanField(required=False)


class CheckpointIntervalField(forms.Field):
    """Minutes between checkpoints (0 < m <= 10,080, a week) or "auto" (Young/Daly)."""

    widget = forms.TextInput

    def to_python(self, value):
        text = str(value or "").strip().lower()[:20]
        if text in ("", "auto"):
            return "auto"
        try:
            minutes = float(text)
            if not math.isfinite(minutes):
                raise ValueError(text)
        except ValueError:
            raise forms.ValidationError("minutes between checkpoints, or “auto”") from None
        if not 0 < minutes <= 10_080:
            raise forms.ValidationError("more than 0 and at most 10,080 minutes (a week)")
        return int(minutes) if minutes.is_integer() else minutes


class WhatIfForm(forms.Form):
    gpu_count = forms.IntegerField(min_value=1, max_value=10_000_000, label="GPUs")
    gpu_sku = forms.ChoiceField(choices=(), label="GPU SKU")
    oversubscription = forms.FloatField(
        min_value=1.0, max_value=64.0, label="Oversubscription (top tier, x:1)"
    )
    site_share = forms.FloatField(
        min_value=0.01, max_value=0.99, required=False, label="Share of GPUs at the first site"
    )
    checkpoint_interval_min = CheckpointIntervalField(label="Checkpoint interval (min or auto)")
    utilisation = forms.FloatField(min_value=0.01, max_value=1.0, label="Utilisation (0-1)")

    def __init__(self, *args, team_id: int, multi_site: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["gpu_sku"].choices = gpu_choices(team_id)
        if not multi_site:
            del self.fields["site_share"]
