"""Request metadata for the audit log (who, from where, which request), without passing the
request into services: a context variable set per request."""

import uuid
from contextvars import ContextVar

request_context: ContextVar[dict | None] = ContextVar("request_context", default=None)


def client_ip(request) -> str:
    # REMOTE_ADDR only: X-Forwarded-For is spoofable unless a trusted proxy rewrites it
    # (ASVS 4.1.3).
    return request.META.get("REMOTE_ADDR", "")


class RequestContextMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # Generated here, never taken from the client: a client-chosen X-Request-ID would be
        # stored as-is in the audit log (forged correlation, log injection).
        request_id = uuid.uuid4().hex
        token = request_context.set(
            {
                "request_id": request_id,
                "ip": client_ip(request),
                "user_agent": request.headers.get("User-Agent", "")[:300],
            }
        )
        try:
            response = self.get_response(request)
        finally:
            request_context.reset(token)
        response["X-Request-ID"] = request_id
        return response
