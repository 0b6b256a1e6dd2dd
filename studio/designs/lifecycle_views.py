"""HTML actions on a project or a design: rename / describe, archive, restore, an owner's
delete (confirmed by the exact name) and discarding a never-saved draft design. POST only;
the writes and their audit rows are in `studio.designs.lifecycle`."""

from django.contrib import messages
from django.shortcuts import redirect, render

from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView
from studio.core.errors import DomainError
from studio.designs import lifecycle
from studio.designs.forms import DeleteConfirmForm, RenameForm
from studio.designs.selectors import designs_visible_to, projects_visible_to


def _refused(request, problem: str):
    return render(request, "400.html", {"problem": problem}, status=400)


def _form_problem(form) -> str:
    return "; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items())


class _ProjectAction(ScopedActionView):
    scope_selector = projects_visible_to
    role = Role.EDITOR

    def post(self, request, *args, **kwargs):
        obj = self.get_object()
        self.require_role(obj, self.role)
        try:
            return self.act(obj)
        except DomainError as exc:
            return _refused(request, f"{exc.field}: {exc}" if exc.field else str(exc))

    def act(self, obj):
        raise NotImplementedError

    def back(self, obj):
        return redirect("project-detail", pk=obj.pk)


class _DesignAction(_ProjectAction):
    scope_selector = designs_visible_to
    team_id_path = "project.team_id"

    def back(self, obj):
        return redirect("design-detail", pk=obj.pk)


class _Rename:
    def act(self, obj):
        form = RenameForm(self.request.POST)
        if not form.is_valid():
            return _refused(self.request, _form_problem(form))
        self.update(obj, **form.cleaned_data)
        messages.success(self.request, f"Saved “{obj.name}”.")
        return self.back(obj)


class _Archive:
    def act(self, obj):
        lifecycle.archive(actor=self.request.user, obj=obj)
        messages.success(self.request, f"Archived “{obj.name}”: hidden from lists, kept whole.")
        return self.back(obj)


class _Restore:
    def act(self, obj):
        lifecycle.restore(actor=self.request.user, obj=obj)
        messages.success(self.request, f"Restored “{obj.name}”.")
        return self.back(obj)


class _Delete:
    role = Role.OWNER

    def act(self, obj):
        form = DeleteConfirmForm(self.request.POST)
        if not form.is_valid():
            return _refused(self.request, _form_problem(form))
        lifecycle.delete_for_good(
            actor=self.request.user, obj=obj, confirm=form.cleaned_data["confirm"]
        )
        messages.success(self.request, f"Deleted “{obj.name}” for good.")
        return self.after_delete(obj)


class ProjectRenameView(_Rename, _ProjectAction):
    def update(self, obj, **values):
        lifecycle.project_update(actor=self.request.user, project=obj, **values)


class ProjectArchiveView(_Archive, _ProjectAction):
    pass


class ProjectRestoreView(_Restore, _ProjectAction):
    pass


class ProjectDeleteView(_Delete, _ProjectAction):
    def after_delete(self, obj):
        return redirect("project-list")


class DesignRenameView(_Rename, _DesignAction):
    def update(self, obj, **values):
        lifecycle.design_update(actor=self.request.user, design=obj, **values)


class DesignArchiveView(_Archive, _DesignAction):
    pass


class DesignRestoreView(_Restore, _DesignAction):
    pass


class DesignDeleteView(_Delete, _DesignAction):
    def after_delete(self, obj):
        return redirect("project-detail", pk=obj.project_id)


class DesignDiscardDraftView(_DesignAction):
    """Discard a design that was never saved (an abandoned "From scratch")."""

    def act(self, obj):
        lifecycle.design_draft_discard(actor=self.request.user, design=obj)
        messages.success(self.request, f"Discarded the draft “{obj.name}”.")
        return redirect("project-detail", pk=obj.project_id)
