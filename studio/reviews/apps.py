from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "studio.reviews"
    label = "reviews"
