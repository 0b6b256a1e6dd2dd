"""Presenting mode: the review's designs full screen, one section per slide (keyboard: arrows,
Esc), with what-if controls that re-evaluate a design synchronously without saving, and
"save as revision"."""

import time

from django.contrib import messages
from django.shortcuts import render
from django.urls import reverse
from django.views.generic import DetailView

from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView, TeamScopedObjectMixin
from studio.accounts.selectors import user_has_role
from studio.designs.selectors import designs_visible_to
from studio.reviews.forms import WhatIfForm
from studio.reviews.presentation import design_panels, live_context
from studio.reviews.selectors import reviews_visible_to
from studio.reviews.whatif import (
    WhatIfInvalid,
    compared_rows,
    current_inputs,
    save_as_revision,
    what_if,
)
from studio.runs.headline import headline_of
from studio.runs.selectors import latest_done_run


def what_if_form(design, data=None) -> WhatIfForm:
    spec = design.latest_revision.spec
    initial = {k: v for k, v in current_inputs(spec).items() if v is not None}
    return WhatIfForm(
        data,
        initial=initial,
        team_id=design.project.team_id,
        multi_site=len(spec.get("regions", {}).get("sites", [])) > 1,
    )


class ReviewPresentView(TeamScopedObjectMixin, DetailView):
    scope_selector = reviews_visible_to
    team_id_path = "project.team_id"
    template_name = "reviews/present.html"
    context_object_name = "review"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        review = self.object
        panels = design_panels(review, charts_per_section=2)
        for panel in panels:
            if panel.state.latest is not None:
                panel.what_if_form = what_if_form(panel.state.design)
        context.update(live_context(review))
        context.update(
            panels=panels,
            can_edit=user_has_role(self.request.user, review.project.team_id, Role.EDITOR),
        )
        return context


class DesignWhatIfView(ScopedActionView):
    """POST: the design's latest revision with the what-if inputs, evaluated now (nothing
    saved); the headline before and after. Any team member may try a what-if."""

    scope_selector = designs_visible_to
    team_id_path = "project.team_id"
    template_name = "reviews/_what_if.html"

    def post(self, request, *args, **kwargs):
        design = self.get_object()
        self.require_role(design, Role.VIEWER)
        if design.latest_revision is None:
            return render(request, self.template_name, {"problem": "no revision yet"}, status=400)
        form = what_if_form(design, request.POST)
        if not form.is_valid():
            return render(request, self.template_name, {"form": form, "design": design}, status=400)
        started = time.perf_counter()
        try:
            result = what_if(design, form.cleaned_data)
        except WhatIfInvalid as exc:
            _errors_into(form, exc)
            return render(request, self.template_name, {"form": form, "design": design}, status=400)
        base = headline_of(latest_done_run(design.latest_revision.runs.all()))
        context = {
            "design": design,
            "result": result,
            "rows": compared_rows(base, result.headline),
            "elapsed_ms": (time.perf_counter() - started) * 1000,
            "can_edit": user_has_role(request.user, design.project.team_id, Role.EDITOR),
        }
        return render(request, self.template_name, context)


class DesignWhatIfSaveView(ScopedActionView):
    """POST (editors): save the what-if as exactly one new revision of the design."""

    scope_selector = designs_visible_to
    team_id_path = "project.team_id"
    template_name = "reviews/_what_if.html"

    def post(self, request, *args, **kwargs):
        design = self.get_object()
        self.require_role(design, Role.EDITOR)
        if design.latest_revision is None:
            return render(request, self.template_name, {"problem": "no revision yet"}, status=400)
        form = what_if_form(design, request.POST)
        if form.is_valid():
            try:
                revision = save_as_revision(
                    actor=request.user, design=design, inputs=form.cleaned_data
                )
            except WhatIfInvalid as exc:
                _errors_into(form, exc)
            else:
                messages.success(request, f"Saved as r{revision.number}: {revision.message}")
                context = {
                    "design": design,
                    "saved": revision,
                    "design_url": reverse("design-detail", args=[design.pk]),
                }
                return render(request, self.template_name, context, status=201)
        return render(request, self.template_name, {"form": form, "design": design}, status=400)


def _errors_into(form, exc: WhatIfInvalid) -> None:
    for name, message in exc.errors.items():
        form.add_error(name if name in form.fields else None, message)
