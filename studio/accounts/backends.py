"""Authentication backends."""

from axes.backends import AxesStandaloneBackend


class TestClientAxesBackend(AxesStandaloneBackend):
    """Test settings only: django-axes refuses authenticate() without a request (it cannot know
    the address), which is what the test client's login() does. Requests are still checked."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


USERNAME_MAX = 150


def lockout_username(request, credentials) -> str | None:
    """The username django-axes keys lockouts on (AXES_USERNAME_CALLABLE): as submitted, cut to
    a username's length and without NUL, so any input fits its row (a 6,000-character name
    from a form without a length check was a 500)."""
    if credentials:
        username = credentials.get("username")
    else:
        username = getattr(request, "data", request.POST).get("username")
    if username is None:
        return None
    return str(username).replace("\x00", "")[:USERNAME_MAX]
