"""The design editor page and its htmx endpoints (live validation, list edits, drafts)."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.generic import DetailView

import models_engine
from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView, TeamScopedObjectMixin
from studio.accounts.selectors import user_has_role
from studio.catalog.presentation import entry_summary
from studio.catalog.selectors import team_catalog, team_catalog_entries
from studio.core.inputs import parse_int
from studio.designs import lifecycle, services
from studio.designs.editor.codec import (
    find_list,
    form_to_spec,
    list_add,
    list_remove,
    spec_to_form,
)
from studio.designs.editor.layout import (
    all_field_paths,
    dom_id,
    editor_sections,
    header_rows,
)
from studio.designs.models import DesignDraft
from studio.designs.selectors import designs_visible_to

CONTROL_FIELDS = {"csrfmiddlewaretoken", "__action__", "message"}
MAX_PATH_CHARS = 200
MAX_VALUE_CHARS = 10_000
MAX_MESSAGE_CHARS = 500  # DesignRevision.message


class EditorInputInvalid(ValueError):
    """A posted editor field that cannot be stored (NUL, over-long): shown as a 400."""


def look_for(form: dict[str, str], team_id: int) -> dict:
    """The engine's quick look of the form, each error carrying the id of its input."""
    look = models_engine.quick_look(form_to_spec(form), team_catalog_entries(team_id))
    for error in look["errors"]:
        error["dom_id"] = dom_id(error["path"]) if error["path"] else "editor-form"
    return look


def posted_form(request) -> dict[str, str]:
    form = {k: v for k, v in request.POST.items() if k not in CONTROL_FIELDS}
    for key, value in form.items():
        if "\x00" in key or "\x00" in value:
            raise EditorInputInvalid(f"{key[:80]!r}: NUL characters are not allowed")
        if len(key) > MAX_PATH_CHARS:
            raise EditorInputInvalid(f"a field name is longer than {MAX_PATH_CHARS} characters")
        if len(value) > MAX_VALUE_CHARS:
            raise EditorInputInvalid(f"{key}: longer than {MAX_VALUE_CHARS:,} characters")
    return form


def posted_message(request) -> str:
    message = request.POST.get("message", "").strip() or "Edited in the studio"
    if "\x00" in message:
        raise EditorInputInvalid("message: NUL characters are not allowed")
    if len(message) > MAX_MESSAGE_CHARS:
        raise EditorInputInvalid(f"message: longer than {MAX_MESSAGE_CHARS} characters")
    return message


def _refused(request, exc: EditorInputInvalid):
    return render(request, "400.html", {"problem": str(exc)}, status=400)


def apply_action(form: dict[str, str], action: str) -> dict[str, str]:
    """`add:<list path>` or `remove:<list path>:<index>`; anything else is a 404."""
    verb, _, target = action.partition(":")
    if verb == "add" and find_list(target) is not None:
        return list_add(form, target)
    if verb == "remove":
        path, _, raw_index = target.rpartition(":")
        index = parse_int(raw_index, maximum=10**6)
        if index is not None and find_list(path) is not None:
            return list_remove(form, path, index)
    raise Http404("No such editor action")


def _catalog_options(team_id: int) -> dict[str, list[dict]]:
    """Datalist options per catalog kind: id plus the key figures an architect picks by."""
    catalog = team_catalog(team_id)
    options = {}
    for kind in ("gpus", "systems", "switches", "nics", "cooling", "storage", "regions"):
        options[kind] = [
            {"id": entry.id, "label": entry_summary(kind, entry)}
            for entry in getattr(catalog, kind).values()
        ]
    return options


class DesignEditorView(TeamScopedObjectMixin, DetailView):
    scope_selector = designs_visible_to
    team_id_path = "project.team_id"
    context_object_name = "design"
    template_name = "designs/editor.html"

    def _initial_form(self):
        draft = DesignDraft.objects.filter(design=self.object, user=self.request.user).first()
        if draft is not None:
            return draft.form_data, draft
        revision = self.object.latest_revision
        form = spec_to_form(revision.spec if revision else {"name": self.object.name})
        form["name"] = self.object.name  # the Name field is the design's name (saving renames)
        return form, None

    def _render(self, form: dict[str, str], *, draft=None, status=200, message=""):
        team_id = self.object.project.team_id
        look = look_for(form, team_id)
        errors = look["errors"]
        context = self.get_context_data(
            object=self.object,
            form_header=header_rows(form, errors),
            sections=editor_sections(form, errors),
            look=look,
            draft=draft,
            catalog_options=_catalog_options(team_id),
            message=message,
            can_edit=self._can_edit(),
            is_new_design=not self.object.revisions.exists(),
        )
        template = "designs/_editor_form.html" if self.request.htmx else self.template_name
        return render(self.request, template, context, status=status)

    def _can_edit(self) -> bool:
        return user_has_role(self.request.user, self.object.project.team_id, Role.EDITOR)

    def get(self, request, *args, **kwargs):
        self.object = self.get_object()
        form, draft = self._initial_form()
        return self._render(form, draft=draft)

    def post(self, request, *args, **kwargs):
        self.object = design = self.get_object()
        self.require_role(design, Role.EDITOR)
        try:
            form = posted_form(request)
            message = posted_message(request)
        except EditorInputInvalid as exc:
            return _refused(request, exc)
        action = request.POST.get("__action__", "")
        if action == "discard":
            services.draft_discard(actor=request.user, design=design)
            return redirect("design-editor", pk=design.pk)
        if action:
            form = apply_action(form, action)
            draft = services.draft_save(actor=request.user, design=design, form_data=form)
            return self._render(form, draft=draft)
        try:
            revision = lifecycle.design_save_from_editor(
                actor=request.user, design=design, spec=form_to_spec(form), message=message
            )
        except (services.DesignSpecInvalid, services.DesignNameTaken) as exc:
            if isinstance(exc, services.DesignNameTaken):
                messages.error(request, f"Name: {exc} Pick another name; nothing was saved.")
            draft = services.draft_save(actor=request.user, design=design, form_data=form)
            return self._render(form, draft=draft, status=422, message=message)
        services.draft_discard(actor=request.user, design=design)
        design.refresh_from_db(fields=["name"])
        messages.success(request, f"Saved revision {revision.number} of “{design.name}”.")
        return redirect("design-detail", pk=design.pk)


class DesignEditorValidateView(ScopedActionView):
    """htmx: save the draft, validate with the engine, return errors + quick look (OOB)."""

    scope_selector = designs_visible_to
    team_id_path = "project.team_id"

    def post(self, request, *args, **kwargs):
        design = self.get_object()
        self.require_role(design, Role.EDITOR)
        try:
            form = posted_form(request)
        except EditorInputInvalid as exc:
            return _refused(request, exc)
        draft = services.draft_save(actor=request.user, design=design, form_data=form)
        look = look_for(form, design.project.team_id)
        return render(
            request,
            "designs/_editor_feedback.html",
            {
                "fields": all_field_paths(form, look["errors"]),
                "sections": editor_sections(form, look["errors"]),
                "look": look,
                "draft": draft,
            },
        )
