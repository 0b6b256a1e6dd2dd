from rest_framework import serializers

from models_engine import RESULT_SCHEMA_VERSION
from studio.catalog.models import TeamCatalogEntry
from studio.core.inputs import MAX_ID, JsonInvalid, check_json, loads_json, no_nul, parse_id
from studio.designs.models import Design, DesignRevision, Project
from studio.runs.models import EngineRun

__all__ = ["MAX_ID"]

# Text fields without a model max_length (TextField) still have one here.
MAX_DESCRIPTION = 5_000


class IdField(serializers.IntegerField):
    """An id in a request body: ASCII digits within bigint (`²`, `٣`, 20 digits: a 400)."""

    def __init__(self, **kwargs):
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)

    def to_internal_value(self, data):
        number = parse_id(data)
        if number is None:
            self.fail("invalid")
        return number


class StrictJSONField(serializers.JSONField):
    """A JSON value of bounded depth, without NUL characters or non-finite numbers; a form
    upload's text is parsed with the same rules."""

    def to_internal_value(self, data):
        try:
            if isinstance(data, str | bytes):
                data = loads_json(data)
            return check_json(super().to_internal_value(data))
        except JsonInvalid as exc:
            raise serializers.ValidationError(str(exc)) from exc


class StrictSerializerMixin:
    """Every CharField refuses NUL characters (DRF's default does; kept explicit for fields
    built by hand) and every JSONField is strict."""

    def build_standard_field(self, field_name, model_field):
        field_class, kwargs = super().build_standard_field(field_name, model_field)
        if issubclass(field_class, serializers.JSONField):
            field_class = StrictJSONField
            kwargs.pop("encoder", None)
            kwargs.pop("decoder", None)
        if issubclass(field_class, serializers.CharField):
            kwargs["validators"] = [*kwargs.get("validators", []), no_nul]
            kwargs.setdefault("max_length", MAX_DESCRIPTION)
        return field_class, kwargs


class ProjectSerializer(StrictSerializerMixin, serializers.ModelSerializer):
    team = IdField(source="team_id")
    archived = serializers.SerializerMethodField()

    class Meta:
        model = Project
        fields = ["id", "team", "name", "description", "created_at", "archived", "archived_at"]
        read_only_fields = ["created_at", "archived_at"]

    def get_archived(self, project) -> bool:
        return project.archived_at is not None


class RenameSerializer(serializers.Serializer):
    """PATCH body of a project or a design: either field, or both."""

    name = serializers.CharField(max_length=200, required=False, validators=[no_nul])
    description = serializers.CharField(
        max_length=MAX_DESCRIPTION, required=False, allow_blank=True, validators=[no_nul]
    )

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError({"name": ["Give a name or a description."]})
        return attrs


class DeleteConfirmSerializer(serializers.Serializer):
    """DELETE's query: `?confirm=<the exact name>` (owners only)."""

    confirm = serializers.CharField(
        max_length=200,
        validators=[no_nul],
        error_messages={"required": "Give ?confirm=<the exact name> to delete for good."},
    )


def revision_label(number: int | None) -> str | None:
    """A revision as the pages name it: r3."""
    return f"r{number}" if number is not None else None


class DesignSerializer(serializers.ModelSerializer):
    """A design's summary. `latest_revision` is the revision number users see (3 for r3);
    `status` is "draft" until the first revision is saved."""

    latest_revision = serializers.SerializerMethodField()
    latest_revision_label = serializers.SerializerMethodField()
    status = serializers.SerializerMethodField()
    archived = serializers.SerializerMethodField()

    class Meta:
        model = Design
        fields = [
            "id",
            "project",
            "name",
            "description",
            "status",
            "latest_revision",
            "latest_revision_label",
            "created_at",
            "archived",
            "archived_at",
        ]

    def get_latest_revision(self, design) -> int | None:
        # The list annotates it (one query for the page, not one per design).
        if hasattr(design, "latest_revision_number"):
            return design.latest_revision_number
        revision = design.latest_revision
        return revision.number if revision else None

    def get_latest_revision_label(self, design) -> str | None:
        return revision_label(self.get_latest_revision(design))

    def get_status(self, design) -> str:
        return "draft" if self.get_latest_revision(design) is None else "saved"

    def get_archived(self, design) -> bool:
        return design.archived_at is not None or design.project.archived_at is not None


class DesignCreateSerializer(serializers.Serializer):
    project = IdField()
    name = serializers.CharField(max_length=200, validators=[no_nul])
    spec = StrictJSONField()
    message = serializers.CharField(max_length=500, required=False, default="")


class DesignRevisionSummarySerializer(serializers.ModelSerializer):
    """A revision in a list: no spec (GET .../revisions/<number>/ has it)."""

    label = serializers.SerializerMethodField()
    author = serializers.SerializerMethodField()

    class Meta:
        model = DesignRevision
        fields = ["number", "label", "spec_hash", "message", "author", "created_at"]

    def get_label(self, revision) -> str:
        return revision_label(revision.number)

    def get_author(self, revision) -> str | None:
        return revision.author.get_username() if revision.author else None


class DesignRevisionSerializer(DesignRevisionSummarySerializer):
    class Meta(DesignRevisionSummarySerializer.Meta):
        fields = ["design", *DesignRevisionSummarySerializer.Meta.fields, "spec"]


class EngineRunListSerializer(serializers.ModelSerializer):
    """A run in a list: ids, status and the headline figures, without the full results (tens
    to hundreds of kB each; 17 runs were 4.6 MB). `GET /api/runs/<id>/` has them."""

    design = serializers.IntegerField(source="revision.design_id", read_only=True)
    design_name = serializers.CharField(source="revision.design.name", read_only=True)
    project = serializers.IntegerField(source="revision.design.project_id", read_only=True)
    revision = serializers.IntegerField(source="revision.number", read_only=True)
    revision_label = serializers.SerializerMethodField()
    headline = serializers.SerializerMethodField()

    class Meta:
        model = EngineRun
        fields = [
            "id",
            "design",
            "design_name",
            "project",
            "revision",
            "revision_label",
            "spec_hash",
            "engine_version",
            "status",
            "progress",
            "error",
            "cached_from",
            "created_at",
            "started_at",
            "finished_at",
            "headline",
        ]

    def get_revision_label(self, run) -> str:
        return revision_label(run.revision.number)

    def get_headline(self, run) -> dict | None:
        """The engine's headline figures (results["headline"]); None before a run is done
        or for results of an older engine version. The list reads only these keys."""
        if hasattr(run, "listed_headline"):
            headline, version = run.listed_headline, run.listed_version
        else:
            headline = (run.results or {}).get("headline")
            version = (run.results or {}).get("result_schema_version")
        current = isinstance(version, int) and version >= RESULT_SCHEMA_VERSION
        return headline if current and headline else None


class EngineRunSerializer(EngineRunListSerializer):
    """One run, with its full results."""

    class Meta(EngineRunListSerializer.Meta):
        fields = [*EngineRunListSerializer.Meta.fields, "results"]


class RevisionDiffSerializer(serializers.Serializer):
    """Changed fields between two revisions (numbers as users see them)."""

    # "from" is a Python keyword: declared below.
    to = serializers.IntegerField()
    changes = serializers.ListField(child=serializers.DictField())


RevisionDiffSerializer._declared_fields["from"] = serializers.IntegerField()


class TeamCatalogEntrySerializer(StrictSerializerMixin, serializers.ModelSerializer):
    team = IdField(source="team_id")

    class Meta:
        model = TeamCatalogEntry
        fields = ["id", "team", "kind", "entry_id", "data", "created_at"]
        read_only_fields = ["entry_id", "created_at"]


class RevisionCreateSerializer(serializers.Serializer):
    spec = StrictJSONField()
    message = serializers.CharField(max_length=500, required=False, default="")


class RevisionUploadSerializer(serializers.Serializer):
    file = serializers.FileField(max_length=255)
    message = serializers.CharField(max_length=500, required=False, default="")
