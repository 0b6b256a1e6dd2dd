from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "studio.core"
    label = "core"
