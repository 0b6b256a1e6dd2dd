from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "studio.reports"
    label = "reports"

    def ready(self):
        # Register the app's Celery tasks in every process (web included): services send them
        # by name, so nothing else imports the tasks module.
        from celery.signals import worker_process_init

        from studio.reports import tasks  # noqa: F401

        worker_process_init.connect(_warm_pdf_tools, weak=False)
        worker_process_init.connect(warm_validation_table, weak=False)


def _warm_pdf_tools(**_kwargs):
    """Start chromium (kaleido) and load WeasyPrint when a worker process starts, in the
    background: a cold start is 10-50x slower than a warm one, and the first report's reader
    should not pay it. Off with REPORTS_WARM_PDF_TOOLS=False (the tests' worker)."""
    import threading

    from django.conf import settings

    if not getattr(settings, "REPORTS_WARM_PDF_TOOLS", True):
        return
    from studio.reports.pdf import warm_up

    threading.Thread(target=warm_up, name="pdf-warm-up", daemon=True).start()


def warm_validation_table(**_kwargs):
    """Build the engine's validation table (every published reference scored, a few seconds)
    in the background when a web or worker process starts, so that the first results page or
    report of the process does not wait for it (their evidence grades read it). Off with
    VALIDATION_WARM=False (the tests, which build it once per test process anyway)."""
    import threading

    from django.conf import settings

    if not getattr(settings, "VALIDATION_WARM", True):
        return
    from models_engine import validation_table

    threading.Thread(target=validation_table, name="validation-warm-up", daemon=True).start()
