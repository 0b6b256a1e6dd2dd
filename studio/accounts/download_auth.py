"""Who may fetch a download URL (a spec's JSON, CSV/XLSX exports, PDFs, config archives).

Scripts and spreadsheets fetch these without a browser session: an API token in
`Authorization: Bearer cs_api_...` (Excel Power Query, curl) makes the request its user's, as
the REST API does; a spreadsheet feed token in `?token=cs_feed_...` (Google Sheets IMPORTDATA,
which cannot send headers) opens the downloads of its one project, read-only. Only views marked
`@token_readable` (or with `token_readable = True`) take tokens, and only for GET/HEAD; every
other page still needs a session."""

from django.http import JsonResponse

from studio.accounts.models import TokenKind
from studio.accounts.tokens import TokenHeaderInvalid, bearer_token, token_lookup

READ_METHODS = ("GET", "HEAD")


def token_readable(view):
    """Mark a download view (function or class) as readable with an API or feed token."""
    view.token_readable = True
    return view


def is_token_readable(view_func) -> bool:
    view_class = getattr(view_func, "view_class", None)  # a class-based view's as_view()
    return bool(getattr(view_func, "token_readable", False)) or bool(
        getattr(view_class, "token_readable", False)
    )


class DownloadTokenMiddleware:
    """Authenticates token-readable downloads: Bearer → `request.user`; `?token=cs_feed_...` →
    `request.feed_token` (the view limits it to the token's project). A malformed, unknown or
    expired Bearer token is a 401 naming the problem, never a login page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.feed_token = None
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.method not in READ_METHODS or not is_token_readable(view_func):
            return None
        if request.user.is_authenticated:
            return None
        try:
            token = bearer_token(request.headers.get("Authorization", ""))
        except TokenHeaderInvalid as exc:
            response = JsonResponse({"detail": str(exc)}, status=401)
            response["WWW-Authenticate"] = 'Bearer realm="downloads"'
            return response
        if token is not None:
            request.user = token.user
        else:
            request.feed_token = token_lookup(request.GET.get("token", ""), TokenKind.FEED)
        return None


def downloadable(request, queryset_for_user, project_field: str):
    """The objects the caller of a download may read: its teams' (session or Bearer token), or
    those of a feed token's one project; None for a caller without either."""
    if request.user.is_authenticated:
        return queryset_for_user(request.user)
    feed = getattr(request, "feed_token", None)
    if feed is not None:
        return queryset_for_user(feed.user).filter(**{project_field: feed.project_id})
    return None
