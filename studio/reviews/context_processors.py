"""The nav's review badge: how many reviews wait for the signed-in user's verdict. A callable,
so that only pages that show the nav run the queries (the live review panel, polled every
second, does not)."""

from functools import partial

from studio.reviews.selectors import owed_count


def review_badge(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"reviews_owed": partial(owed_count, user)}
