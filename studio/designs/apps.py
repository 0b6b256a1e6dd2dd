from django.apps import AppConfig


class DesignsConfig(AppConfig):
    name = "studio.designs"
    label = "designs"
