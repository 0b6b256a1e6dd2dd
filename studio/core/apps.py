from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "studio.core"
    label = "core"

    def ready(self):
        from studio.core import signals  # noqa: F401  (connects the audit receivers)
