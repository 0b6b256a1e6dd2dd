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
