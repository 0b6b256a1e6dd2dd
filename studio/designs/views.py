"""HTML pages for projects and designs. Logic lives in services; views translate HTTP."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.generic import DetailView

from models_engine.presets import spec_from_system
from models_engine.spec import SpecValidationError
from studio.accounts.models import Role
from studio.accounts.selectors import user_has_role
from studio.catalog.selectors import team_catalog
from studio.core.scoping import TeamScopedObjectMixin
from studio.designs import services
from studio.designs.examples import get_example
from studio.designs.forms import (
    DesignBlankForm,
    DesignFromExampleForm,
    DesignFromSystemForm,
    DesignImportForm,
    ProjectCreateForm,
)
from studio.designs.importing import ImportFileInvalid, spec_from_upload
from studio.designs.selectors import designs_visible_to, projects_visible_to
from studio.reports.comparison import comparison_columns
from studio.runs.headline import headline_cards
from studio.runs.models import RunStatus
from studio.runs.selectors import results_outdated, typed_results


@login_required
def project_list(request):
    form = ProjectCreateForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            project = services.project_create(
                actor=request.user,
                team=form.cleaned_data["team"],
                name=form.cleaned_data["name"],
                description=form.cleaned_data["description"],
            )
        except IntegrityError:
            form.add_error("name", "This team already has a project with that name.")
        else:
            return redirect("project-detail", pk=project.pk)
    projects = projects_visible_to(request.user).order_by("team__name", "name")
    return render(request, "designs/project_list.html", {"projects": projects, "form": form})


class ProjectDetailView(TeamScopedObjectMixin, DetailView):
    scope_selector = projects_visible_to
    template_name = "designs/project_detail.html"
    context_object_name = "project"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        designs = list(self.object.designs.prefetch_related("revisions"))
        columns = {c.design.pk: c for c in comparison_columns(designs)}
        context["designs"] = [
            {"design": d, "revisions": len(d.revisions.all()), "column": columns[d.pk]}
            for d in designs
        ]
        context["example_form"] = kwargs.get("example_form") or DesignFromExampleForm()
        context["blank_form"] = kwargs.get("blank_form") or DesignBlankForm(prefix="blank")
        context["system_form"] = kwargs.get("system_form") or DesignFromSystemForm(
            prefix="system", systems=team_catalog(self.object.team_id).systems.values()
        )
        context["import_form"] = kwargs.get("import_form") or DesignImportForm(prefix="import")
        context["can_edit"] = user_has_role(self.request.user, self.object.team_id, Role.EDITOR)
        return context

    def post(self, request, *args, **kwargs):
        self.object = project = self.get_object()
        self.require_role(project, Role.EDITOR)
        kind = request.POST.get("form", "example")
        handlers = {
            "example": self._from_example,
            "system": self._from_system,
            "blank": self._blank,
            "import": self._import,
        }
        handler = handlers.get(kind, self._from_example)
        return handler(request, project)

    def _created(self, design):
        messages.success(self.request, f"Design “{design.name}” created.")
        return redirect("design-detail", pk=design.pk)

    def _name_taken(self, form):
        form.add_error("name", "This project already has a design with that name.")

    def _from_example(self, request, project):
        form = DesignFromExampleForm(request.POST)
        if form.is_valid():
            example = get_example(form.cleaned_data["example"])
            try:
                design = services.design_create(
                    actor=request.user,
                    project=project,
                    name=form.cleaned_data["name"],
                    spec=example.spec,
                    message=f"Created from example {example.slug}",
                )
            except IntegrityError:
                self._name_taken(form)
            else:
                return self._created(design)
        return self.render_to_response(self.get_context_data(example_form=form))

    def _from_system(self, request, project):
        catalog = team_catalog(project.team_id)
        form = DesignFromSystemForm(request.POST, prefix="system", systems=catalog.systems.values())
        if form.is_valid():
            data = form.cleaned_data
            try:
                spec = spec_from_system(catalog, data["system"], data["systems"], data["name"])
                design = services.design_create(
                    actor=request.user,
                    project=project,
                    name=data["name"],
                    spec=spec,
                    message=f"Created from catalog system {data['system']} x {data['systems']}",
                )
            except SpecValidationError as exc:
                for error in exc.errors:
                    form.add_error(None, f"{error['path']}: {error['message']}")
            except IntegrityError:
                self._name_taken(form)
            else:
                return self._created(design)
        return self.render_to_response(self.get_context_data(system_form=form), status=400)

    def _blank(self, request, project):
        form = DesignBlankForm(request.POST, prefix="blank")
        if form.is_valid():
            try:
                design = services.design_create_blank(
                    actor=request.user, project=project, name=form.cleaned_data["name"]
                )
            except IntegrityError:
                self._name_taken(form)
            else:
                return redirect("design-editor", pk=design.pk)
        return self.render_to_response(self.get_context_data(blank_form=form))

    def _import(self, request, project):
        form = DesignImportForm(request.POST, request.FILES, prefix="import")
        if form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                spec = spec_from_upload(upload.name, upload.read())
                design = services.design_create(
                    actor=request.user,
                    project=project,
                    name=form.cleaned_data["name"],
                    spec=spec,
                    message=f"Imported from {upload.name}",
                )
            except ImportFileInvalid as exc:
                form.add_error("file", str(exc))
            except services.DesignSpecInvalid as exc:
                for error in exc.errors:
                    form.add_error(None, f"{error['path'] or 'design'}: {error['message']}")
            except IntegrityError:
                self._name_taken(form)
            else:
                return self._created(design)
        return self.render_to_response(self.get_context_data(import_form=form), status=400)


class DesignDetailView(TeamScopedObjectMixin, DetailView):
    scope_selector = designs_visible_to
    team_id_path = "project.team_id"
    template_name = "designs/design_detail.html"
    context_object_name = "design"

    def get_context_data(self, **kwargs):
        from studio.runs.selectors import runs_visible_to

        context = super().get_context_data(**kwargs)
        context["revision"] = self.object.latest_revision
        context["revisions"] = self.object.revisions.select_related("author")
        runs = runs_visible_to(self.request.user).filter(revision__design=self.object)
        context["runs"] = runs[:10]
        latest_done = runs.filter(status=RunStatus.DONE).order_by("-finished_at").first()
        context["latest_done"] = latest_done
        context["headline_cards"] = headline_cards(typed_results(latest_done))
        context["latest_outdated"] = results_outdated(latest_done)
        context["can_edit"] = user_has_role(
            self.request.user, self.object.project.team_id, Role.EDITOR
        )
        return context


class DesignSpecJsonView(TeamScopedObjectMixin, DetailView):
    """The latest revision's spec as a JSON download (re-importable, CLI-evaluable)."""

    scope_selector = designs_visible_to
    team_id_path = "project.team_id"

    def render_to_response(self, context, **response_kwargs):
        revision = self.object.latest_revision
        if revision is None:
            raise Http404("This design has no revision yet")
        response = JsonResponse(revision.spec, json_dumps_params={"indent": 2})
        filename = slugify(self.object.name) or "design"
        response["Content-Disposition"] = (
            f'attachment; filename="{filename}-r{revision.number}.json"'
        )
        return response
