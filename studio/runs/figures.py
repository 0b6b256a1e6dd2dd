"""The results page's figures, stored on the run: built once from its results (by the worker
when the run finishes, or on the first view), then read instead of rebuilding every chart on
every request."""

import logging

from django.db import DatabaseError

from studio.runs.charts import CHARTS_VERSION, run_sections
from studio.runs.models import EngineRun, RunStatus
from studio.runs.selectors import typed_results

logger = logging.getLogger(__name__)


def run_figure_sections(run: EngineRun, results) -> list[dict]:
    """The results page's sections and figures of a finished run (`results`: its typed results),
    from the figures stored on the run; built and stored once when missing or made by other
    chart code (`CHARTS_VERSION`). Results of a run never change, so neither do its figures."""
    stored = run.figures or {}
    if stored.get("version") == CHARTS_VERSION:
        return stored["sections"]
    sections = run_sections(results)
    figures = {"version": CHARTS_VERSION, "sections": sections}
    try:
        EngineRun.objects.filter(pk=run.pk, status=RunStatus.DONE).update(figures=figures)
        run.figures = figures
    except DatabaseError:  # storing is an optimisation: the page still shows what was built
        logger.warning("figures of run %s not stored", run.pk, exc_info=True)
    return sections


def store_run_figures(run: EngineRun) -> None:
    """Build and store a finished run's figures now (the worker, right after the results)."""
    results = typed_results(run)
    if results is not None:
        run_figure_sections(run, results)
