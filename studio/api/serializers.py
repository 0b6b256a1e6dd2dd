from rest_framework import serializers

from studio.catalog.models import TeamCatalogEntry
from studio.designs.models import Design, DesignRevision, Project
from studio.runs.models import EngineRun


class ProjectSerializer(serializers.ModelSerializer):
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
        revision = design.latest_revision
        return revision.pk if revision else None


# Largest primary key PostgreSQL's bigint holds: a larger id is a 400, not a database error.
MAX_ID = 2**63 - 1


class DesignCreateSerializer(serializers.Serializer):
    project = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    name = serializers.CharField(max_length=200)
    spec = serializers.JSONField()
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


class TeamCatalogEntrySerializer(serializers.ModelSerializer):
    class Meta:
        model = TeamCatalogEntry
        fields = ["id", "team", "kind", "entry_id", "data", "created_at"]
        read_only_fields = ["entry_id", "created_at"]


class RevisionCreateSerializer(serializers.Serializer):
    spec = serializers.JSONField()
    message = serializers.CharField(max_length=500, required=False, default="")


class RevisionUploadSerializer(serializers.Serializer):
    file = serializers.FileField()
    message = serializers.CharField(max_length=500, required=False, default="")
