"""Revision history actions of a design: revert to a revision, clone. (The diff page shows
results too, so it lives in `studio.runs.design_views`.)"""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect

from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView
from studio.designs import services
from studio.designs.forms import DesignCloneForm, DesignRevertForm
from studio.designs.selectors import designs_visible_to


class _DesignPostView(ScopedActionView):
    scope_selector = designs_visible_to
    team_id_path = "project.team_id"


class DesignRevertView(_DesignPostView):
    def post(self, request, *args, **kwargs):
        design = self.get_object()
        self.require_role(design, Role.EDITOR)
        form = DesignRevertForm(request.POST, design=design)
        if not form.is_valid():
            raise Http404("No such revision")
        revision = form.cleaned_data["revision"]
        new = services.design_revert(actor=request.user, design=design, revision=revision)
        messages.success(request, f"Reverted to r{revision.number} as r{new.number}.")
        return redirect("design-detail", pk=design.pk)


class DesignCloneView(_DesignPostView):
    def post(self, request, *args, **kwargs):
        design = self.get_object()
        self.require_role(design, Role.EDITOR)
        form = DesignCloneForm(request.POST)
        form.is_valid()  # every name is acceptable; an empty one becomes "<name> (copy)"
        if form.errors:
            messages.error(request, f"Name: {form.errors['name'][0]}")
            return redirect("design-detail", pk=design.pk)
        name = form.cleaned_data.get("name") or f"{design.name[:193]} (copy)"
        try:
            clone = services.design_clone(actor=request.user, design=design, name=name)
        except services.DesignNameTaken as exc:
            messages.error(request, str(exc))
            return redirect("design-detail", pk=design.pk)
        messages.success(request, f"Cloned as “{clone.name}”.")
        return redirect("design-detail", pk=clone.pk)
