"""The nav's review badge: how many reviews wait for the signed-in user's verdict, and their
unread notices. Callables, so that only pages that show the nav run the queries (the live
review panel, polled every second, does not)."""

from functools import partial

from studio.reviews.selectors import owed_count, unread_notifications


def review_badge(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "reviews_owed": partial(owed_count, user),
        "review_notices": lambda: unread_notifications(user).count(),
    }
