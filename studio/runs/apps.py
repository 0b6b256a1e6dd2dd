from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "studio.runs"
    label = "runs"
