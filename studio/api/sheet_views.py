"""Spreadsheet imports over the API: a partial spec sheet applied as a patch onto a base
revision (one new revision), and a variants sheet (a design or a revision per row). All or
nothing; a bad sheet answers 400 with each error's row, column and field.

(The spec sheet downloads are `/exports/designs/<id>/spec.csv|xlsx?revision=N`: session,
Bearer token or feed token, like every export.)"""

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from models_engine import spec_diff
from studio.accounts.models import Role
from studio.accounts.selectors import user_has_role
from studio.api.openapi import error_response
from studio.core.inputs import parse_id
from studio.designs import services
from studio.designs.importing import ImportFileInvalid, check_request_size
from studio.designs.selectors import designs_visible_to
from studio.designs.spec_sheet import SheetInvalid, VariantMode


class SheetUploadSerializer(serializers.Serializer):
    file = serializers.FileField(max_length=255, help_text="A .csv or .xlsx sheet.")
    base_revision = serializers.IntegerField(
        min_value=1,
        max_value=2**31 - 1,
        required=False,
        help_text="Revision number the sheet applies onto (as users see it: 3 for r3); "
        "default the latest.",
    )


class SpecPatchSerializer(SheetUploadSerializer):
    message = serializers.CharField(max_length=300, required=False, default="")


class VariantsSerializer(SheetUploadSerializer):
    mode = serializers.ChoiceField(choices=VariantMode.CHOICES, default=VariantMode.DESIGNS)


SHEET_ERROR = inline_serializer(
    "SheetError",
    {
        "row": serializers.IntegerField(allow_null=True),
        "column": serializers.CharField(allow_null=True),
        "column_name": serializers.CharField(),
        "field": serializers.CharField(),
        "message": serializers.CharField(),
    },
)
REVISION_SUMMARY = inline_serializer(
    "SheetRevision",
    {
        "id": serializers.IntegerField(),
        "design": serializers.IntegerField(),
        "design_name": serializers.CharField(),
        "number": serializers.IntegerField(),
        "label": serializers.CharField(),
        "spec_hash": serializers.CharField(),
        "message": serializers.CharField(),
    },
)
BAD_SHEET = OpenApiResponse(
    inline_serializer(
        "SheetInvalid",
        {
            "detail": serializers.CharField(required=False),
            "file": serializers.ListField(child=serializers.CharField(), required=False),
            "base_revision": serializers.ListField(child=serializers.CharField(), required=False),
            "mode": serializers.ListField(child=serializers.CharField(), required=False),
            "errors": serializers.ListField(child=SHEET_ERROR, required=False),
        },
    ),
    description="Unreadable file, a bad field or values that do not validate; nothing saved.",
)
NOT_ALLOWED = error_response(403)
NOT_FOUND = error_response(404)
PATCH_RESULT = inline_serializer(
    "SpecPatchResult",
    {
        "revision": REVISION_SUMMARY,
        "base": REVISION_SUMMARY,
        "changes": serializers.ListField(child=serializers.DictField()),
    },
)


def _summary(revision) -> dict:
    return {
        "id": revision.pk,
        "design": revision.design_id,
        "design_name": revision.design.name,
        "number": revision.number,
        "label": f"r{revision.number}",
        "spec_hash": revision.spec_hash,
        "message": revision.message,
    }


def _bad_sheet(exc: SheetInvalid) -> Response:
    return Response(
        {
            "detail": f"The sheet was not applied: {len(exc.errors)} problem(s); nothing saved.",
            "file": [str(error) for error in exc.errors],
            "errors": [error.as_dict() for error in exc.errors],
        },
        status=status.HTTP_400_BAD_REQUEST,
    )


class _SheetView(APIView):
    parser_classes = [MultiPartParser]
    payload_class: type[serializers.Serializer] = SheetUploadSerializer

    def _design_and_payload(self, request, pk: str):
        design_id = parse_id(pk)
        design = (
            designs_visible_to(request.user).filter(pk=design_id).first() if design_id else None
        )
        if design is None:  # another team's design is answered like a missing one
            raise NotFound("No such design among your teams.")
        if not user_has_role(request.user, design.project.team_id, Role.EDITOR):
            self.permission_denied(request, "Your role in this team does not allow this action.")
        try:
            check_request_size(request.META)
        except ImportFileInvalid as exc:
            raise ValidationError({"file": [str(exc)]}) from exc
        payload = self.payload_class(data=request.data)
        payload.is_valid(raise_exception=True)
        return design, payload.validated_data

    @staticmethod
    def _base(design, data):
        revisions = design.revisions.order_by("-number")
        number = data.get("base_revision")
        base = revisions.filter(number=number).first() if number else revisions.first()
        if base is None:
            numbers = list(revisions.values_list("number", flat=True)[:50])
            allowed = f"one of {numbers}" if numbers else "none: save a first revision"
            raise ValidationError({"base_revision": [f"no such revision; {allowed}"]})
        return base


class DesignSpecPatchApiView(_SheetView):
    payload_class = SpecPatchSerializer

    @extend_schema(
        request={"multipart/form-data": SpecPatchSerializer},
        responses={
            201: OpenApiResponse(PATCH_RESULT, description="The new revision, its diff to base."),
            200: OpenApiResponse(PATCH_RESULT, description="The sheet changes nothing."),
            400: BAD_SHEET,
            403: NOT_ALLOWED,
            404: NOT_FOUND,
        },
    )
    def post(self, request, pk: str):
        """Apply a partial spec sheet (rows `path, value`; other columns ignored) onto a base
        revision: one new revision, validated as a whole, or nothing."""
        design, data = self._design_and_payload(request, pk)
        base = self._base(design, data)
        upload = data["file"]
        try:
            revision, created = services.design_revision_patch(
                actor=request.user,
                base=base,
                filename=upload.name,
                content=upload,
                message=data["message"],
            )
        except ImportFileInvalid as exc:
            raise ValidationError({"file": [str(exc)]}) from exc
        except SheetInvalid as exc:
            return _bad_sheet(exc)
        body = {
            "revision": _summary(revision),
            "base": _summary(base),
            "changes": spec_diff(base.spec, revision.spec),
        }
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class DesignVariantsApiView(_SheetView):
    payload_class = VariantsSerializer

    @extend_schema(
        request={"multipart/form-data": VariantsSerializer},
        responses={
            201: OpenApiResponse(
                inline_serializer(
                    "VariantsCreated", {"created": serializers.ListField(child=REVISION_SUMMARY)}
                ),
                description="One design (or revision) per row.",
            ),
            400: BAD_SHEET,
            403: NOT_ALLOWED,
            404: NOT_FOUND,
        },
    )
    def post(self, request, pk: str):
        """A variants sheet (header row of spec paths and optionally `name`; one row per
        variant) applied onto a base revision: a new design per row (mode `designs`) or a new
        revision of this design per row (mode `revisions`). All rows or none."""
        design, data = self._design_and_payload(request, pk)
        base = self._base(design, data)
        upload = data["file"]
        try:
            created = services.design_variants_create(
                actor=request.user,
                base=base,
                filename=upload.name,
                content=upload,
                mode=data["mode"],
            )
        except ImportFileInvalid as exc:
            raise ValidationError({"file": [str(exc)]}) from exc
        except SheetInvalid as exc:
            return _bad_sheet(exc)
        return Response({"created": [_summary(r) for r in created]}, status=status.HTTP_201_CREATED)
