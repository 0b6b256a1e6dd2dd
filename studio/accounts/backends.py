"""Authentication backends."""

from axes.backends import AxesStandaloneBackend


class TestClientAxesBackend(AxesStandaloneBackend):
    """Test settings only: django-axes refuses authenticate() without a request (it cannot know
    the address), which is what the test client's login() does. Requests are still checked."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
