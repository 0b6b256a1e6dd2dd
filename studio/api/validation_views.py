"""GET /api/validation/: the validation panel as data (any authenticated caller; no team data)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from models_engine import validation_table
from studio.reports.validation import FILTERS, FilterError, panel_json, parse_selection

FILTER_HELP = {
    "engine": "only this engine's references (performance, collectives, fabric)",
    "family": "only this family (one source / table of runs)",
    "quantity": "only this quantity (step time, memory per GPU, ...)",
    "role": "fit (used to set a constant) or check (out-of-sample only)",
    "gpu": "GPU generation (catalog architecture: Ampere, Hopper, Blackwell)",
    "model_class": "dense or moe: step times of dense or mixture-of-experts models",
    "ids": "comma-separated reference ids (a design's nearest references)",
}


class ValidationView(APIView):
    """Every published reference the engines are checked against: source, what was measured,
    published and engine values, error (engine / published - 1), role (fit / check), family;
    with |error| statistics per engine and quantity, per family and overall, fitted and
    check-only apart, and the evidence-grade rules."""

    @extend_schema(
        parameters=[OpenApiParameter(name, str, description=FILTER_HELP[name]) for name in FILTERS],
        responses={200: dict},
    )
    def get(self, request):
        table = validation_table()
        try:
            selection = parse_selection(request.query_params, table)
        except FilterError as error:
            raise ValidationError(error.errors) from error
        return Response(panel_json(selection, table))
