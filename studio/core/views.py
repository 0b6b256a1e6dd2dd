"""Pages that belong to no single domain app."""

from django.db import connection
from django.http import JsonResponse


def healthz(request):
    """Liveness + database reachability, for the container health check."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
