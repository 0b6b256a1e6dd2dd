"""The results page's figures, stored on the run: built once from its results (by the worker
when the run finishes, or on the first view), then read instead of rebuilding every chart on
every request. The compare page's figures, built once per web process for each set of compared
runs and design names."""

import hashlib
import logging
from collections.abc import Callable

from django.db import DatabaseError, transaction
from django.utils.html import format_html, json_script

from studio.core.process_cache import ProcessCache
from studio.runs.charts import CHARTS_VERSION, run_sections
from studio.runs.models import ComparisonFigures, EngineRun, RunStatus
from studio.runs.selectors import results_identity, typed_results

logger = logging.getLogger(__name__)
# Stored comparisons kept (each ~0.1-0.5 MB of figure JSON; a new one costs ~0.3 s CPU to build).
STORED_COMPARISONS = 500
# The compare page's figures of the last 128 comparisons (~150 kB each) per web process.
COMPARED_FIGURES = ProcessCache("compare page figures", max_entries=128)


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


def compared_figures(
    columns, names: list[str], build: Callable[[], list[dict]], builder_version: str = ""
) -> list[dict]:
    """The compare page's figures (`build()` makes them from the columns' runs and the names),
    built once for the same runs' results, design names and chart code: stored in the database
    for every web process, and kept in this one. A column without a finished run contributes
    nothing to a chart, only its name. The caller has checked that the user may see every
    design; the list returned is shared: read it only. `builder_version` names the code of
    `build` (it lives in a higher layer), so a change there rebuilds the stored figures too."""
    # By the runs' results, not their ids: re-evaluating an unchanged design (a cache hit, a
    # new run) does not change the figures.
    runs = tuple((c.design.pk, results_identity(c.run) if c.run else None) for c in columns)
    key = (CHARTS_VERSION, builder_version, runs, tuple(names))
    digest = hashlib.sha256(repr(key).encode()).hexdigest()
    return COMPARED_FIGURES.get_or_build(
        key, lambda: [with_html(f) for f in _stored_or_built(digest, build)]
    )


def _stored_or_built(digest: str, build: Callable[[], list[dict]]) -> list[dict]:
    stored = ComparisonFigures.objects.filter(key=digest).values_list("figures", flat=True)
    for figures in stored:
        return figures
    figures = build()
    try:
        with transaction.atomic():  # a failed insert must not break the page's transaction
            ComparisonFigures.objects.bulk_create(
                [ComparisonFigures(key=digest, figures=figures)], ignore_conflicts=True
            )
            _prune_comparisons()
    except DatabaseError:  # storing is an optimisation: the page shows what was built
        logger.warning("comparison figures %s not stored", digest[:12], exc_info=True)
    return figures


def _prune_comparisons() -> None:
    """Keep the newest STORED_COMPARISONS: older ones are rebuilt on demand if anyone asks."""
    stale = ComparisonFigures.objects.order_by("-created_at", "-pk").values_list("pk", flat=True)[
        STORED_COMPARISONS:
    ]
    ComparisonFigures.objects.filter(pk__in=list(stale)).delete()


def with_html(figure: dict) -> dict:
    """The figure with its chart element and JSON script rendered once (`html`): escaping a
    figure's JSON for the page costs more than everything else the compare page does."""
    script_id = figure.get("script_id") or f"figure-{figure['id']}"
    html = format_html(
        '<div class="chart" id="chart-{}" data-figure="{}"></div>\n{}',
        figure["id"],
        script_id,
        json_script(figure["spec"], script_id),
    )
    return {**figure, "script_id": script_id, "html": html}
