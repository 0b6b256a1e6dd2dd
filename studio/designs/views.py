"""HTML pages for projects and designs. Logic lives in services; views translate HTTP.

The project and design pages that show runs live in `studio.runs.design_views` (above designs
in the layers); this module holds the project list and the design-creating forms."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.db.models import Count
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_safe

from studio.accounts.download_auth import downloadable, token_readable
from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView
from studio.core.audit import audit_record
from studio.designs import services
from studio.designs.filters import ProjectFilter
from studio.designs.forms import ProjectCreateForm, design_create_forms
from studio.designs.importing import ImportFileInvalid, check_request_size
from studio.designs.selectors import designs_visible_to, projects_visible_to


@login_required
def project_list(request):
    form = ProjectCreateForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            project = services.project_create(actor=request.user, **form.cleaned_data)
        except services.ProjectNameTaken as exc:
            form.add_error(exc.field, str(exc))
        else:
            return redirect("project-detail", pk=project.pk)
    listed = ProjectFilter(request.GET, queryset=projects_visible_to(request.user))
    if not listed.is_valid():  # the same FilterSet as GET /api/projects/: the same 400
        return render(request, "400.html", {"problem": _filter_problem(listed)}, status=400)
    projects = listed.qs.annotate(design_count=Count("designs")).order_by("team__name", "name")
    context = {"projects": projects, "form": form, "archived": listed.form.cleaned_data["archived"]}
    return render(request, "designs/project_list.html", context)


def _filter_problem(filterset) -> str:
    return "; ".join(f"{name}: {' '.join(errs)}" for name, errs in filterset.errors.items())


class _DesignCreateView(ScopedActionView):
    """POST only: create a design in the project from one form; an invalid form is shown
    again, alone, with its errors."""

    scope_selector = projects_visible_to
    form_key = ""
    title = ""
    invalid_status = 400

    def create(self, project, data: dict):
        raise NotImplementedError

    def post(self, request, *args, **kwargs):
        project = self.get_object()
        self.require_role(project, Role.EDITOR)
        form = design_create_forms(project, request.POST, request.FILES)[self.form_key]
        if form.is_valid():
            try:
                design = self.create(project, form.cleaned_data)
            except services.DesignNameTaken as exc:
                form.add_error(exc.field, str(exc))
            except ImportFileInvalid as exc:
                form.add_error("file", str(exc))
            except services.DesignSpecInvalid as exc:
                for error in exc.errors:
                    form.add_error(None, f"{error['path'] or 'design'}: {error['message']}")
            else:
                return self.created(design)
        context = {"project": project, "form": form, "view": self}
        return render(request, "designs/design_create.html", context, status=self.invalid_status)

    def created(self, design):
        messages.success(self.request, f"Design “{design.name}” created.")
        return redirect("design-detail", pk=design.pk)


class DesignFromExampleView(_DesignCreateView):
    form_key, title, invalid_status = "example_form", "From an example", 200

    def create(self, project, data):
        return services.design_create_from_example(
            actor=self.request.user, project=project, name=data["name"], slug=data["example"]
        )


class DesignFromSystemView(_DesignCreateView):
    form_key, title = "system_form", "From a catalog system"

    def create(self, project, data):
        return services.design_create_from_system(
            actor=self.request.user,
            project=project,
            name=data["name"],
            system_id=data["system"],
            systems=data["systems"],
        )


class DesignBlankView(_DesignCreateView):
    form_key, title, invalid_status = "blank_form", "From scratch", 200

    def create(self, project, data):
        return services.design_create_blank(
            actor=self.request.user, project=project, name=data["name"]
        )

    def created(self, design):
        return redirect("design-editor", pk=design.pk)


class DesignImportView(_DesignCreateView):
    form_key, title = "import_form", "Import"

    def post(self, request, *args, **kwargs):
        try:
            check_request_size(request.META)  # before the body is parsed
        except ImportFileInvalid as exc:
            self.require_role(self.get_object(), Role.EDITOR)
            return render(request, "400.html", {"problem": f"Import refused: {exc}"}, status=400)
        return super().post(request, *args, **kwargs)

    def create(self, project, data):
        upload = data["file"]
        return services.design_create_from_upload(
            actor=self.request.user,
            project=project,
            name=data["name"],
            filename=upload.name,
            content=upload,  # read by the importer, within its size limit
        )


@token_readable
@require_safe
def design_spec_json(request, pk: int):
    """The latest revision's spec as a JSON download (re-importable, CLI-evaluable); with a
    session, an API token (Bearer) or the project's feed token (?token=)."""
    designs = downloadable(request, designs_visible_to, "project_id")
    if designs is None:
        return redirect_to_login(request.get_full_path())
    design = get_object_or_404(designs, pk=pk)
    revision = design.latest_revision
    if revision is None:
        raise Http404("This design has no revision yet")
    if request.feed_token is not None:
        audit_record(
            actor=request.feed_token.user,
            team=design.project.team,
            action="feed.read",
            target=design.project,
            data={"token": request.feed_token.pk, "export": f"design {design.pk} spec.json"},
        )
    response = JsonResponse(revision.spec, json_dumps_params={"indent": 2})
    filename = slugify(design.name) or "design"
    response["Content-Disposition"] = f'attachment; filename="{filename}-r{revision.number}.json"'
    response["Cache-Control"] = "no-store"
    return response
