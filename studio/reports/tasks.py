"""Celery interface of the reports app: build a report's PDF."""

from celery import shared_task

from studio.reports.services import BUILD_PDF_TASK, report_pdf_build


@shared_task(name=BUILD_PDF_TASK, acks_late=True)
def build_report_pdf(report_id: int) -> None:
    report_pdf_build(report_id=report_id)
