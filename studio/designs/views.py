"""HTML pages for projects and designs. Logic lives in services; views translate HTTP."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError
from django.shortcuts import redirect, render
from django.views.generic import DetailView

from studio.accounts.models import Role
from studio.core.scoping import TeamScopedObjectMixin
from studio.designs import services
from studio.designs.examples import get_example
from studio.designs.forms import DesignFromExampleForm, ProjectCreateForm
from studio.designs.selectors import designs_visible_to, projects_visible_to


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
        context["designs"] = self.object.designs.prefetch_related("revisions")
        context["example_form"] = kwargs.get("example_form") or DesignFromExampleForm()
        return context

    def post(self, request, *args, **kwargs):
        self.object = project = self.get_object()
        self.require_role(project, Role.EDITOR)
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
                form.add_error("name", "This project already has a design with that name.")
            else:
                messages.success(request, f"Design “{design.name}” created.")
                return redirect("design-detail", pk=design.pk)
        return self.render_to_response(self.get_context_data(example_form=form))


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
        context["runs"] = runs_visible_to(self.request.user).filter(revision__design=self.object)[
            :10
        ]
        return context
