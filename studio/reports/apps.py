from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "studio.reports"
    label = "reports"

    def ready(self):
        # Register the app's Celery tasks in every process (web included): services send them
        # by name, so nothing else imports the tasks module.
        from studio.reports import tasks  # noqa: F401
