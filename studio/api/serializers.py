from rest_framework import serializers

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

    class Meta:
        model = Project
        fields = ["id", "team", "name", "description", "created_at"]
        read_only_fields = ["created_at"]


class DesignSerializer(serializers.ModelSerializer):
    latest_revision = serializers.SerializerMethodField()

    class Meta:
        model = Design
        fields = ["id", "project", "name", "created_at", "latest_revision"]

    def get_latest_revision(self, design) -> int | None:
        # The list annotates it (one query for the page, not one per design).
        if hasattr(design, "latest_revision_id"):
            return design.latest_revision_id
        revision = design.latest_revision
        return revision.pk if revision else None


class DesignCreateSerializer(serializers.Serializer):
    project = IdField()
    name = serializers.CharField(max_length=200, validators=[no_nul])
    spec = StrictJSONField()
    message = serializers.CharField(max_length=500, required=False, default="")


class DesignRevisionSerializer(serializers.ModelSerializer):
    class Meta:
        model = DesignRevision
        fields = ["id", "design", "number", "spec", "spec_hash", "message", "author", "created_at"]


class EngineRunSerializer(serializers.ModelSerializer):
    class Meta:
        model = EngineRun
        fields = [
            "id",
            "revision",
            "spec_hash",
            "engine_version",
            "status",
            "progress",
            "results",
            "error",
            "cached_from",
            "created_at",
            "started_at",
            "finished_at",
        ]


class EngineRunListSerializer(EngineRunSerializer):
    """A run in a list: everything but its results (tens to hundreds of kB each; the list of
    17 runs was 4.6 MB). `GET /api/runs/<id>/` has them."""

    class Meta(EngineRunSerializer.Meta):
        fields = [f for f in EngineRunSerializer.Meta.fields if f != "results"]


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
