"""The design page's spreadsheet imports: a partial spec sheet as a patch (one new revision,
then the diff), and a variants sheet (a design or a revision per row). Errors come back on the
form, each naming its sheet row, column and field; nothing is saved then."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView
from studio.designs import services
from studio.designs.forms import design_sheet_forms
from studio.designs.importing import ImportFileInvalid, check_request_size
from studio.designs.selectors import designs_visible_to
from studio.designs.spec_sheet import SheetInvalid, VariantMode


class _SheetImportView(ScopedActionView):
    scope_selector = designs_visible_to
    team_id_path = "project.team_id"
    form_key = ""

    def apply(self, design, data: dict):
        raise NotImplementedError

    def post(self, request, *args, **kwargs):
        design = self.get_object()
        self.require_role(design, Role.EDITOR)
        try:
            check_request_size(request.META)  # before the body is parsed
        except ImportFileInvalid as exc:
            return render(request, "400.html", {"problem": f"Import refused: {exc}"}, status=400)
        form = design_sheet_forms(design, request.POST, request.FILES)[self.form_key]
        sheet_errors = []
        if form.is_valid():
            try:
                return self.apply(design, form.cleaned_data)
            except ImportFileInvalid as exc:
                form.add_error("file", str(exc))
            except SheetInvalid as exc:
                sheet_errors = exc.errors
                form.add_error(None, f"The sheet was not applied: {len(exc.errors)} problem(s).")
        context = {"design": design, "form": form, "view": self, "sheet_errors": sheet_errors}
        return render(request, "designs/sheet_import.html", context, status=400)


class DesignSpecPatchView(_SheetImportView):
    form_key, title = "patch_form", "Import a sheet as a new revision"

    def apply(self, design, data):
        upload = data["file"]
        base = data["base_revision"]
        revision, created = services.design_revision_patch(
            actor=self.request.user,
            base=base,
            filename=upload.name,
            content=upload,
            message=data["message"],
        )
        if not created:
            messages.info(self.request, f"The sheet matches r{revision.number}: no new revision.")
            return redirect("design-detail", pk=design.pk)
        messages.success(self.request, f"r{revision.number} created from {upload.name}.")
        url = reverse("design-diff", kwargs={"pk": design.pk})
        return redirect(f"{url}?from={base.number}&to={revision.number}")


class DesignVariantsView(_SheetImportView):
    form_key, title = "variants_form", "Import variants"

    def apply(self, design, data):
        upload = data["file"]
        created = services.design_variants_create(
            actor=self.request.user,
            base=data["base_revision"],
            filename=upload.name,
            content=upload,
            mode=data["mode"],
        )
        if data["mode"] == VariantMode.DESIGNS:
            messages.success(self.request, f"{len(created)} design(s) created from {upload.name}.")
            return redirect("project-detail", pk=design.project_id)
        numbers = ", ".join(f"r{r.number}" for r in created)
        messages.success(self.request, f"Revisions {numbers} created from {upload.name}.")
        return redirect("design-detail", pk=design.pk)
