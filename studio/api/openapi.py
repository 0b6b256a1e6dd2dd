"""What the OpenAPI description says about answers besides success: each operation lists its
status codes through `documented(...)`, and a post-processing hook adds the answers every
operation can give (401 without valid credentials, 403 for a read-only token's write)."""

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

ERROR_BODY = inline_serializer(
    "Error",
    fields={"detail": serializers.CharField(required=False)},
)
ERROR_DESCRIPTIONS = {
    400: "Bad input: {field: [what is allowed]} (or {detail})",
    401: "No valid credentials",
    403: "Your role or token does not allow this",
    404: "No such object among your teams",
    409: "The object is not in a state that allows this",
}


def error_response(code: int) -> OpenApiResponse:
    return OpenApiResponse(ERROR_BODY, description=ERROR_DESCRIPTIONS[code])


def documented(success: dict, *error_codes: int) -> dict:
    """`extend_schema(responses=...)`: the success answers plus the errors named."""
    return {**success, **{code: error_response(code) for code in error_codes}}


def _error_schema_ref() -> dict:
    return {"$ref": "#/components/schemas/Error"}


def _common_codes(method: str, operation: dict) -> list[str]:
    """Answers any operation of this shape can give: 401 (no valid credentials), 403 on a write
    (read-only token, viewer), 404 when the path names an object, 400 when it takes input."""
    parameters = operation.get("parameters", [])
    codes = ["401"] if method == "get" else ["401", "403"]
    if any(p.get("in") == "path" for p in parameters):
        codes.append("404")
    if operation.get("requestBody") or any(p.get("in") == "query" for p in parameters):
        codes.append("400")
    return codes


def add_common_errors(result, generator, request, public):
    """The answers every operation of its shape can give (see `_common_codes`)."""
    result.setdefault("components", {}).setdefault("schemas", {}).setdefault(
        "Error",
        {"type": "object", "properties": {"detail": {"type": "string"}}},
    )
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            responses = operation.setdefault("responses", {})
            for code in _common_codes(method, operation):
                responses.setdefault(
                    code,
                    {
                        "description": ERROR_DESCRIPTIONS[int(code)],
                        "content": {"application/json": {"schema": _error_schema_ref()}},
                    },
                )
    return result
