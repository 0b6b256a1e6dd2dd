"""API token authentication: `Authorization: Bearer cs_api_...` (or `Token cs_api_...`)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions

from studio.accounts.models import TokenKind
from studio.accounts.tokens import token_lookup


class HashedTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("bearer", "token")

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode(errors="ignore").split()
        if not header or header[0].lower() not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Give one token after the keyword.")
        token = token_lookup(header[1], TokenKind.API)
        if token is None:
            raise exceptions.AuthenticationFailed("Unknown, expired or revoked token.")
        return token.user, token

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
