from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "studio.runs"
    label = "runs"

    def ready(self):
        # Register the app's Celery tasks in every process (web included): services send them
        # by name, so nothing else imports the tasks module.
        from studio.runs import tasks  # noqa: F401
