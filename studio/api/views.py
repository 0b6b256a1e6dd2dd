"""REST endpoints: thin viewsets over the services, scoped by team membership."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from models_engine import design_json_schema, load_catalog, spec_diff
from studio.accounts.selectors import teams_of
from studio.api import filters
from studio.api import serializers as s
from studio.api.scoping import TeamScopedViewSet
from studio.catalog import services as catalog_services
from studio.catalog.selectors import team_catalog, team_entries_visible_to
from studio.core.inputs import parse_id, parse_int
from studio.designs import services as design_services
from studio.designs.importing import ImportFileInvalid, check_request_size, spec_from_upload
from studio.designs.selectors import (
    designs_visible_to,
    latest_revision_id_subquery,
    projects_visible_to,
)
from studio.runs import services as run_services
from studio.runs.selectors import runs_visible_to

NO_TEAM = "No such team among yours."
NO_PROJECT = "No such project among your teams."


def _team_of_caller(request, team_id: int):
    """The caller's team with this id; another team's id is answered like a missing one."""
    team = teams_of(request.user).filter(pk=team_id).first()
    if team is None:
        raise NotFound(NO_TEAM)
    return team


def _field_errors(exc: design_services.DesignSpecInvalid) -> dict:
    """Engine validation errors as DRF field errors keyed by the spec path."""
    errors: dict[str, list[str]] = {}
    for error in exc.errors:
        errors.setdefault(f"spec.{error['path']}" if error["path"] else "spec", []).append(
            error["message"]
        )
    return errors


class ProjectViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet):
    scope_selector = projects_visible_to
    serializer_class = s.ProjectSerializer
    filterset_class = filters.ProjectFilter

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


class DesignViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet):
    scope_selector = designs_visible_to
    serializer_class = s.DesignSerializer
    filterset_class = filters.DesignFilter

    def safely_get_queryset(self, queryset):
        if self.action == "list":  # each design's latest revision id, in the same query
            return queryset.annotate(latest_revision_id=latest_revision_id_subquery())
        return queryset

    @extend_schema(request=s.DesignCreateSerializer, responses=s.DesignSerializer)
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

    @extend_schema(methods=["get"], request=None, responses=s.DesignRevisionSerializer(many=True))
    @extend_schema(
        methods=["post"], request=s.RevisionCreateSerializer, responses=s.DesignRevisionSerializer
    )
    @action(detail=True, methods=["get", "post"])
    def revisions(self, request, pk=None, format=None):
        """GET: every revision, newest first. POST {spec, message}: a new revision (a no-op
        edit returns the latest revision unchanged)."""
        design = self.get_object()
        if request.method == "GET":
            revisions = design.revisions.select_related("author").order_by("-number")
            return Response(s.DesignRevisionSerializer(revisions, many=True).data)
        self.require_team_role(design.project.team_id)
        payload = s.RevisionCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        return self._new_revision(
            design, payload.validated_data["spec"], payload.validated_data["message"]
        )

    @extend_schema(
        request={"multipart/form-data": s.RevisionUploadSerializer},
        responses=s.DesignRevisionSerializer,
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
        try:
            revision = design_services.design_revision_create(
                actor=self.request.user, design=design, spec=spec, message=message
            )
        except design_services.DesignSpecInvalid as exc:
            raise ValidationError(_field_errors(exc)) from exc
        return Response(s.DesignRevisionSerializer(revision).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[OpenApiParameter("from", int), OpenApiParameter("to", int)],
        responses=dict,
    )
    @action(detail=True, methods=["get"])
    def diff(self, request, pk=None, format=None):
        """Changed fields between two revisions (default: the last two)."""
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
            }
        )

    @extend_schema(request=None, responses=s.EngineRunSerializer)
    @action(detail=True, methods=["post"])
    def evaluate(self, request, pk=None, format=None):
        design = self.get_object()
        self.require_team_role(design.project.team_id)
        if design.latest_revision is None:
            return Response(
                {"detail": "This design has no revision yet: save one before evaluating it."},
                status=status.HTTP_409_CONFLICT,
            )
        run = run_services.run_enqueue(actor=request.user, revision=design.latest_revision)
        return Response(s.EngineRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class EngineRunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet):
    """Lists are lean (no results, not even read from the database); a run's detail has them."""

    scope_selector = runs_visible_to
    serializer_class = s.EngineRunSerializer
    filterset_class = filters.EngineRunFilter

    def get_serializer_class(self):
        return s.EngineRunListSerializer if self.action == "list" else s.EngineRunSerializer

    def safely_get_queryset(self, queryset):
        return queryset.defer("results") if self.action == "list" else queryset


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
