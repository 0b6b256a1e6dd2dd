"""`{% review_status design %}`: a design's review status and its newest review, for pages of
apps below reviews in the layers (they load the tag; they import nothing of reviews)."""

from django import template

from studio.reviews.selectors import Status, design_status, newest_review_of

register = template.Library()


@register.inclusion_tag("reviews/_design_status.html")
def review_status(design):
    review = newest_review_of(design)
    return {
        "design": design,
        "review": review,
        "status": design_status(design) if review else Status.DRAFT,
    }
