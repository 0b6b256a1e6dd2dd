"""REST endpoints of design sweeps: create, watch (progress), fetch results, cancel."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from studio.api.openapi import documented
from studio.api.scoping import TeamScopedViewSet
from studio.designs.selectors import designs_visible_to
from studio.runs.models import Sweep
from studio.runs.sweeps import services
from studio.runs.sweeps.selectors import sweeps_visible_to


class SweepSerializer(serializers.ModelSerializer):
    progress_pct = serializers.IntegerField(read_only=True)

    class Meta:
        model = Sweep
        fields = [
            "id",
            "design",
            "revision",
            "name",
            "definition",
            "status",
            "total_variants",
            "variants_done",
            "progress_pct",
            "chunk_count",
            "chunks_done",
            "error",
            "created_at",
            "started_at",
            "finished_at",
        ]


class SweepCreateSerializer(serializers.Serializer):
    design = serializers.IntegerField(min_value=1)
    name = serializers.CharField(max_length=120, required=False, default="", allow_blank=True)
    definition = serializers.DictField(
        help_text="axes [{path, values | range {start, stop, count, integer}}], constraints "
        "{max_time_to_train_days, max_facility_power_mw, max_capex_usd, "
        "min_security_score_pct, memory_must_fit}, objectives [tco, time_to_train, "
        "cost_per_run, carbon, goodput]"
    )


@extend_schema_view(
    list=extend_schema(responses=documented({200: SweepSerializer(many=True)}, 400)),
    retrieve=extend_schema(responses=documented({200: SweepSerializer}, 404)),
)
class SweepViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet):
    """`GET /api/sweeps/<id>/` is the progress to poll; `results/` the summary once done."""

    scope_selector = sweeps_visible_to
    serializer_class = SweepSerializer

    def safely_get_queryset(self, queryset):
        return queryset.defer("summary")

    @extend_schema(
        request=SweepCreateSerializer,
        responses=documented({202: SweepSerializer}, 400, 403, 404),
    )
    def create(self, request, *args, **kwargs):
        payload = SweepCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        design = (
            designs_visible_to(request.user).filter(pk=payload.validated_data["design"]).first()
        )
        if design is None:
            raise NotFound("No such design among your teams.")
        self.require_team_role(design.project.team_id)
        try:
            sweep = services.sweep_create(
                actor=request.user,
                design=design,
                definition=payload.validated_data["definition"],
                name=payload.validated_data["name"],
            )
        except services.SweepInvalid as exc:
            raise ValidationError(
                {f"definition.{field}": messages for field, messages in exc.errors.items()}
            ) from exc
        return Response(SweepSerializer(sweep).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses=documented({200: OpenApiTypes.OBJECT}, 404, 409))
    @action(detail=True, methods=["get"])
    def results(self, request, pk=None, format=None):
        """Feasible and valid counts, why not feasible, the Pareto front, the best variant per
        objective, sensitivity, and a sample of variants (every variant: the CSV / XLSX)."""
        sweep = self.get_object()
        summary = Sweep.objects.values_list("summary", flat=True).get(pk=sweep.pk)
        if summary is None:
            return Response(
                {"detail": f"The sweep is {sweep.status}: results come when it is done."},
                status=status.HTTP_409_CONFLICT,
            )
        return Response(summary)

    @extend_schema(request=None, responses=documented({200: SweepSerializer}, 403, 404))
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None, format=None):
        sweep = self.get_object()
        self.require_team_role(sweep.design.project.team_id)
        services.sweep_cancel(actor=request.user, sweep=sweep)
        sweep.refresh_from_db()
        return Response(SweepSerializer(sweep).data)
