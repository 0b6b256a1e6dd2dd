"""Revision history of a design: diff any two revisions, revert, clone."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.views.generic import DetailView

from models_engine.spec import spec_diff
from studio.accounts.models import Role
from studio.core.scoping import ScopedActionView, TeamScopedObjectMixin
from studio.designs import services
from studio.designs.selectors import designs_visible_to
from studio.runs.headline import headline_changes, headline_of
from studio.runs.models import RunStatus


def latest_done_run(revision):
    return revision.runs.filter(status=RunStatus.DONE).order_by("-finished_at").first()


class _DesignPostView(ScopedActionView):
    scope_selector = designs_visible_to
    team_id_path = "project.team_id"


class RevisionDiffView(TeamScopedObjectMixin, DetailView):
    scope_selector = designs_visible_to
    team_id_path = "project.team_id"
    context_object_name = "design"
    template_name = "designs/diff.html"

    def _revision(self, number: str | None, fallback):
        if number is None:
            return fallback
        if not str(number).isdigit():
            raise Http404("Revision numbers are whole numbers")
        revision = self.object.revisions.filter(number=int(number)).first()
        if revision is None:
            raise Http404("No such revision")
        return revision

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        revisions = list(self.object.revisions.order_by("-number"))
        if not revisions:
            raise Http404("This design has no revision yet")
        after = self._revision(self.request.GET.get("to"), revisions[0])
        before = self._revision(
            self.request.GET.get("from"), revisions[1] if len(revisions) > 1 else revisions[0]
        )
        context.update(
            revisions=revisions,
            before=before,
            after=after,
            changes=spec_diff(before.spec, after.spec),
            headline=headline_changes(
                headline_of(latest_done_run(before)), headline_of(latest_done_run(after))
            ),
            before_run=latest_done_run(before),
            after_run=latest_done_run(after),
        )
        return context


class DesignRevertView(_DesignPostView):
    def post(self, request, *args, **kwargs):
        design = self.get_object()
        self.require_role(design, Role.EDITOR)
        number = request.POST.get("revision", "")
        revision = design.revisions.filter(number=int(number)).first() if number.isdigit() else None
        if revision is None:
            raise Http404("No such revision")
        new = services.design_revert(actor=request.user, design=design, revision=revision)
        messages.success(request, f"Reverted to r{revision.number} as r{new.number}.")
        return redirect("design-detail", pk=design.pk)


class DesignCloneView(_DesignPostView):
    def post(self, request, *args, **kwargs):
        design = self.get_object()
        self.require_role(design, Role.EDITOR)
        name = request.POST.get("name", "").strip() or f"{design.name} (copy)"
        if design.project.designs.filter(name=name).exists():
            messages.error(request, f"This project already has a design named “{name}”.")
            return redirect("design-detail", pk=design.pk)
        clone = services.design_clone(actor=request.user, design=design, name=name)
        messages.success(request, f"Cloned as “{clone.name}”.")
        return redirect("design-detail", pk=clone.pk)


class DesignAcceptRiskView(_DesignPostView):
    """Accept a failing security finding (reason, owner, expiry), then re-evaluate."""

    def post(self, request, *args, **kwargs):
        from django.utils.dateparse import parse_date

        from studio.runs import services as run_services

        design = self.get_object()
        self.require_role(design, Role.EDITOR)
        try:
            services.risk_accept(
                actor=request.user,
                design=design,
                check_id=request.POST.get("check_id", ""),
                reason=request.POST.get("reason", ""),
                owner=request.POST.get("owner", ""),
                expires=parse_date(request.POST.get("expires", "") or "")
                if _is_date(request.POST.get("expires", ""))
                else None,
            )
        except services.RiskAcceptanceInvalid as exc:
            for field, message in exc.errors.items():
                messages.error(request, f"Risk not accepted: {field} — {message}.")
            run_id = request.POST.get("run", "")
            return (
                redirect("run-detail", pk=run_id)
                if run_id.isdigit()
                else redirect("design-detail", pk=design.pk)
            )
        messages.success(request, "Risk accepted and recorded; re-evaluating the design.")
        run = run_services.run_enqueue(actor=request.user, revision=design.latest_revision)
        return redirect("run-detail", pk=run.pk)


def _is_date(text: str) -> bool:
    import re

    return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", text or ""))
