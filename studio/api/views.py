"""REST endpoints: thin viewsets over the services, scoped by team membership."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from models_engine import cost_delta, design_json_schema, load_catalog, spec_diff
from studio.accounts.models import Role
from studio.accounts.selectors import teams_of, user_has_role
from studio.api import filters
from studio.api import serializers as s
from studio.api.openapi import documented
from studio.api.scoping import TeamScopedViewSet
from studio.catalog import services as catalog_services
from studio.catalog.selectors import team_catalog, team_entries_visible_to
from studio.core.inputs import parse_id, parse_int
from studio.designs import lifecycle
from studio.designs import services as design_services
from studio.designs.importing import ImportFileInvalid, check_request_size, spec_from_upload
from studio.designs.selectors import (
    designs_visible_to,
    latest_revision_number_subquery,
    projects_visible_to,
)
from studio.runs import services as run_services
from studio.runs.selectors import (
    latest_done_run,
    runs_visible_to,
    runs_with_listed_headline,
    typed_results,
)

NO_TEAM = "No such team among yours."
NO_PROJECT = "No such project among your teams."


def _team_of_caller(request, team_id: int):
    """The caller's team with this id; another team's id is answered like a missing one."""
    team = teams_of(request.user).filter(pk=team_id).first()
    if team is None:
        raise NotFound(NO_TEAM)
    return team


def _cost_change(before, after) -> dict | None:
    """The engine's line-by-line cost delta of two revisions' latest finished runs."""
    results = [typed_results(latest_done_run(revision.runs)) for revision in (before, after)]
    if any(typed is None for typed in results):
        return None
    return cost_delta(results[0].cost, results[1].cost)


def _field_errors(exc: design_services.DesignSpecInvalid) -> dict:
    """Engine validation errors as DRF field errors keyed by the spec path."""
    errors: dict[str, list[str]] = {}
    for error in exc.errors:
        errors.setdefault(f"spec.{error['path']}" if error["path"] else "spec", []).append(
            error["message"]
        )
    return errors


def _archive_actions(serializer_class, label: str):
    """POST .../archive/ and .../restore/ for a viewset of projects or designs (editors)."""

    def change(self, request, service):
        obj = self.get_object()
        self.require_team_role(self.team_id_of(obj))
        service(actor=request.user, obj=obj)
        return Response(serializer_class(self.get_object()).data)

    @extend_schema(request=None, responses=documented({200: serializer_class}, 403, 404))
    @action(detail=True, methods=["post"])
    def archive(self, request, pk=None, format=None):
        return change(self, request, lifecycle.archive)

    @extend_schema(request=None, responses=documented({200: serializer_class}, 403, 404))
    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None, format=None):
        return change(self, request, lifecycle.restore)

    archive.__doc__ = (
        f"Archive the {label}: hidden from lists (?archived=true shows it), kept whole."
    )
    restore.__doc__ = f"Bring an archived {label} back into the lists."
    return archive, restore


class _LifecycleMixin:
    """PATCH (rename, description), DELETE (owners, ?confirm=<exact name>) for projects and
    designs; every change audited by `studio.designs.lifecycle`."""

    name_taken: type[Exception]

    def team_id_of(self, obj) -> int:
        raise NotImplementedError

    def partial_update(self, request, pk=None, format=None):
        obj = self.get_object()
        self.require_team_role(self.team_id_of(obj))
        payload = s.RenameSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        try:
            self.update_service(actor=request.user, obj=obj, **payload.validated_data)
        except self.name_taken as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        return Response(self.get_serializer(self.get_object()).data)

    def destroy(self, request, pk=None, format=None):
        obj = self.get_object()
        payload = s.DeleteConfirmSerializer(data=request.query_params)
        if not user_has_role(request.user, self.team_id_of(obj), Role.OWNER):
            raise PermissionDenied("Only a team owner may delete; archive it instead.")
        payload.is_valid(raise_exception=True)
        try:
            lifecycle.delete_for_good(
                actor=request.user, obj=obj, confirm=payload.validated_data["confirm"]
            )
        except lifecycle.DeleteNotConfirmed as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        return Response(status=status.HTTP_204_NO_CONTENT)


DELETE_SCHEMA = extend_schema(
    parameters=[
        OpenApiParameter(
            "confirm", str, required=True, description="the exact name, to confirm (owners only)"
        )
    ],
    responses=documented({204: None}, 400, 403, 404),
)
PATCH_SCHEMA = {"request": s.RenameSerializer}


@extend_schema_view(
    list=extend_schema(responses=documented({200: s.ProjectSerializer(many=True)}, 400)),
    retrieve=extend_schema(responses=documented({200: s.ProjectSerializer}, 404)),
    partial_update=extend_schema(
        **PATCH_SCHEMA, responses=documented({200: s.ProjectSerializer}, 400, 403, 404)
    ),
    destroy=DELETE_SCHEMA,
)
class ProjectViewSet(
    _LifecycleMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet
):
    """Projects of your teams. Lists hide archived ones unless `?archived=true|all`; PATCH
    renames or describes, archive/restore hide and bring back, DELETE is an owner's, confirmed
    by the exact name."""

    scope_selector = projects_visible_to
    serializer_class = s.ProjectSerializer
    filterset_class = filters.ProjectFilter
    name_taken = design_services.ProjectNameTaken
    archive, restore = _archive_actions(s.ProjectSerializer, "project")

    def team_id_of(self, project) -> int:
        return project.team_id

    def update_service(self, *, actor, obj, **values):
        return lifecycle.project_update(actor=actor, project=obj, **values)

    @extend_schema(responses=documented({201: s.ProjectSerializer}, 400, 403, 404))
    def create(self, request, *args, **kwargs):
        serializer = s.ProjectSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        team = _team_of_caller(request, serializer.validated_data["team_id"])
        self.require_team_role(team.pk)
        try:
            project = design_services.project_create(
                actor=request.user,
                team=team,
                name=serializer.validated_data["name"],
                description=serializer.validated_data.get("description", ""),
            )
        except design_services.ProjectNameTaken as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        return Response(s.ProjectSerializer(project).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    list=extend_schema(responses=documented({200: s.DesignSerializer(many=True)}, 400)),
    retrieve=extend_schema(responses=documented({200: s.DesignSerializer}, 404)),
    partial_update=extend_schema(
        **PATCH_SCHEMA, responses=documented({200: s.DesignSerializer}, 400, 403, 404)
    ),
    destroy=DELETE_SCHEMA,
)
class DesignViewSet(
    _LifecycleMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet
):
    """Designs of your teams' projects, as summaries (`latest_revision`: the number users see;
    `status`: draft until a revision is saved). Lists hide archived designs and designs of
    archived projects unless `?archived=true|all`."""

    scope_selector = designs_visible_to
    serializer_class = s.DesignSerializer
    filterset_class = filters.DesignFilter
    name_taken = design_services.DesignNameTaken
    archive, restore = _archive_actions(s.DesignSerializer, "design")

    def team_id_of(self, design) -> int:
        return design.project.team_id

    def update_service(self, *, actor, obj, **values):
        return lifecycle.design_update(actor=actor, design=obj, **values)

    def safely_get_queryset(self, queryset):
        if self.action == "list":  # each design's latest revision number, in the same query
            return queryset.annotate(latest_revision_number=latest_revision_number_subquery())
        return queryset

    @extend_schema(
        request=s.DesignCreateSerializer,
        responses=documented({201: s.DesignSerializer}, 400, 403, 404),
    )
    def create(self, request, *args, **kwargs):
        payload = s.DesignCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        project = (
            projects_visible_to(request.user).filter(pk=payload.validated_data["project"]).first()
        )
        if project is None:  # another team's project is answered like a missing one
            raise NotFound(NO_PROJECT)
        self.require_team_role(project.team_id)
        try:
            design = design_services.design_create(
                actor=request.user,
                project=project,
                name=payload.validated_data["name"],
                spec=payload.validated_data["spec"],
                message=payload.validated_data["message"],
            )
        except design_services.DesignSpecInvalid as exc:
            raise ValidationError(_field_errors(exc)) from exc
        except design_services.DesignNameTaken as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        return Response(s.DesignSerializer(design).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=documented({204: None}, 403, 404, 409))
    @action(detail=True, methods=["post"], url_path="discard-draft")
    def discard_draft(self, request, pk=None, format=None):
        """Discard a design that was never saved (no revision, e.g. an abandoned "From
        scratch"); a design with revisions is archived or deleted instead (409)."""
        design = self.get_object()
        self.require_team_role(design.project.team_id)
        try:
            lifecycle.design_draft_discard(actor=request.user, design=design)
        except lifecycle.NotADraft as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        methods=["get"],
        request=None,
        responses=documented({200: s.DesignRevisionSummarySerializer(many=True)}, 404),
    )
    @extend_schema(
        methods=["post"],
        request=s.RevisionCreateSerializer,
        responses=documented(
            {201: s.DesignRevisionSerializer, 200: s.DesignRevisionSerializer}, 400, 403, 404
        ),
    )
    @action(detail=True, methods=["get", "post"], filter_backends=[])
    def revisions(self, request, pk=None, format=None):
        """GET: the revisions, newest first, paginated (no spec: see revisions/<number>/).
        POST {spec, message}: a new revision, 201; a no-op edit answers 200 with the latest
        revision unchanged."""
        design = self.get_object()
        if request.method == "GET":
            revisions = design.revisions.select_related("author").order_by("-number")
            page = self.paginate_queryset(revisions)
            data = s.DesignRevisionSummarySerializer(page, many=True).data
            return self.get_paginated_response(data)
        self.require_team_role(design.project.team_id)
        payload = s.RevisionCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        return self._new_revision(
            design, payload.validated_data["spec"], payload.validated_data["message"]
        )

    @extend_schema(request=None, responses=documented({200: s.DesignRevisionSerializer}, 404))
    @action(detail=True, methods=["get"], url_path=r"revisions/(?P<number>[0-9]{1,9})")
    def revision(self, request, pk=None, number=None, format=None):
        """One revision with its full spec, by the number users see (r3: 3)."""
        design = self.get_object()
        revision = design.revisions.select_related("author").filter(number=int(number)).first()
        if revision is None:
            raise NotFound("No such revision of this design.")
        return Response(s.DesignRevisionSerializer(revision).data)

    @extend_schema(
        request={"multipart/form-data": s.RevisionUploadSerializer},
        responses=documented(
            {201: s.DesignRevisionSerializer, 200: s.DesignRevisionSerializer}, 400, 403, 404
        ),
    )
    @action(
        detail=True, methods=["post"], url_path="revisions/upload", parser_classes=[MultiPartParser]
    )
    def upload_revision(self, request, pk=None, format=None):
        """A new revision from a JSON, CSV or XLSX file (CSV/XLSX: columns path, value)."""
        design = self.get_object()
        self.require_team_role(design.project.team_id)
        try:
            check_request_size(request.META)
        except ImportFileInvalid as exc:
            raise ValidationError({"file": [str(exc)]}) from exc
        payload = s.RevisionUploadSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        upload = payload.validated_data["file"]
        try:
            spec = spec_from_upload(upload.name, upload)
        except ImportFileInvalid as exc:
            raise ValidationError({"file": [str(exc)]}) from exc
        message = payload.validated_data["message"] or f"Uploaded {upload.name}"
        return self._new_revision(design, spec, message)

    def _new_revision(self, design, spec: dict, message: str) -> Response:
        before = design.latest_revision
        try:
            revision = design_services.design_revision_create(
                actor=self.request.user, design=design, spec=spec, message=message
            )
        except design_services.DesignSpecInvalid as exc:
            raise ValidationError(_field_errors(exc)) from exc
        created = before is None or revision.pk != before.pk
        return Response(
            s.DesignRevisionSerializer(revision).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("from", int, description="revision number (default: the one before)"),
            OpenApiParameter("to", int, description="revision number (default: the latest)"),
        ],
        responses=documented({200: s.RevisionDiffSerializer}, 400, 404),
    )
    @action(detail=True, methods=["get"])
    def diff(self, request, pk=None, format=None):
        """Changed fields between two revisions (default: the last two), and the cost change
        line by line between their latest finished runs (null until both have one)."""
        design = self.get_object()
        revisions = {r.number: r for r in design.revisions.all()}
        if not revisions:
            raise NotFound("This design has no revision yet.")
        numbers = sorted(revisions)
        wanted = {}
        for key, default in (
            ("from", numbers[-2] if len(numbers) > 1 else numbers[-1]),
            ("to", numbers[-1]),
        ):
            number = parse_int(request.query_params.get(key, str(default)))
            if number not in revisions:
                raise ValidationError({key: [f"one of the revision numbers {numbers}"]})
            wanted[key] = revisions[number]
        return Response(
            {
                "from": wanted["from"].number,
                "to": wanted["to"].number,
                "changes": spec_diff(wanted["from"].spec, wanted["to"].spec),
                "cost_change": _cost_change(wanted["from"], wanted["to"]),
            }
        )

    @extend_schema(request=None, responses=documented({202: s.EngineRunSerializer}, 403, 404, 409))
    @action(detail=True, methods=["post"])
    def evaluate(self, request, pk=None, format=None):
        """Queue an engine run of the latest revision (202; poll GET /api/runs/<id>/)."""
        design = self.get_object()
        self.require_team_role(design.project.team_id)
        if design.latest_revision is None:
            return Response(
                {"detail": "This design has no revision yet: save one before evaluating it."},
                status=status.HTTP_409_CONFLICT,
            )
        run = run_services.run_enqueue(actor=request.user, revision=design.latest_revision)
        return Response(s.EngineRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


@extend_schema_view(
    list=extend_schema(responses=documented({200: s.EngineRunListSerializer(many=True)}, 400)),
    retrieve=extend_schema(responses=documented({200: s.EngineRunSerializer}, 404)),
)
class EngineRunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet):
    """Lists are lean (the headline figures, not the results); a run's detail has them."""

    scope_selector = runs_visible_to
    serializer_class = s.EngineRunSerializer
    filterset_class = filters.EngineRunFilter

    def get_serializer_class(self):
        return s.EngineRunListSerializer if self.action == "list" else s.EngineRunSerializer

    def safely_get_queryset(self, queryset):
        return runs_with_listed_headline(queryset) if self.action == "list" else queryset


class SpecSchemaView(APIView):
    """The JSON Schema of the design spec, as the engine publishes it."""

    @extend_schema(responses={200: dict})
    def get(self, request):
        return Response(design_json_schema())


class TeamCatalogEntryViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet):
    """A team's own catalog entries, validated by the engine's catalog models."""

    scope_selector = team_entries_visible_to
    serializer_class = s.TeamCatalogEntrySerializer
    filterset_class = filters.TeamCatalogEntryFilter

    @extend_schema(responses=documented({201: s.TeamCatalogEntrySerializer}, 400, 403, 404))
    def create(self, request, *args, **kwargs):
        serializer = s.TeamCatalogEntrySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        team = _team_of_caller(request, serializer.validated_data["team_id"])
        self.require_team_role(team.pk)
        try:
            entry = catalog_services.team_entry_create(
                actor=request.user,
                team=team,
                kind=serializer.validated_data["kind"],
                data=serializer.validated_data["data"],
            )
        except catalog_services.CatalogEntryInvalid as exc:
            raise ValidationError(
                {f"data.{k}" if k not in ("kind", "data") else k: v for k, v in exc.errors.items()}
            ) from exc
        return Response(s.TeamCatalogEntrySerializer(entry).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=documented({204: None}, 403, 404))
    def destroy(self, request, pk=None, format=None):
        entry = self.get_object()
        self.require_team_role(entry.team_id)
        catalog_services.team_entry_delete(actor=request.user, entry=entry)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CatalogView(APIView):
    """The catalog one team sees: built-in entries plus its own ({kind: {id: entry}})."""

    @extend_schema(responses={200: dict})
    def get(self, request):
        team_id = request.query_params.get("team")
        if team_id is None:
            return Response(load_catalog().as_dict())
        team = _team_of_caller(request, parse_id(team_id) or 0)
        return Response(team_catalog(team.pk).as_dict())
