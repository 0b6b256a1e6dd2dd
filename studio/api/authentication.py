"""API token authentication: `Authorization: Bearer cs_api_...` (or `Token cs_api_...`)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions

from studio.accounts.tokens import BEARER_KEYWORDS, TokenHeaderInvalid, bearer_token


class HashedTokenAuthentication(authentication.BaseAuthentication):
    keywords = BEARER_KEYWORDS

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode(errors="ignore")
        try:
            token = bearer_token(header)
        except TokenHeaderInvalid as exc:
            raise exceptions.AuthenticationFailed(str(exc)) from exc
        return (token.user, token) if token is not None else None

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


class TokenWriteScope(permissions.BasePermission):
    """A read-only token may only read, whatever the user's role."""

    message = "This token is read-only; create a token with write access to change data."

    def has_permission(self, request, view):
        token = request.auth
        if token is None or request.method in permissions.SAFE_METHODS:
            return True
        return bool(getattr(token, "write_enabled", False))


class HashedTokenScheme(OpenApiAuthenticationExtension):
    """Documents the token scheme in the OpenAPI description."""

    target_class = "studio.api.authentication.HashedTokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A Cluster Studio API token (cs_api_...), from Tokens.",
        }
