"""Celery interface of the reports app: build a report's PDF."""

from celery import shared_task

from studio.reports.services import report_pdf_build


@shared_task(name="reports.build_report_pdf", acks_late=True)
def build_report_pdf(report_id: int) -> None:
    report_pdf_build(report_id=report_id)
