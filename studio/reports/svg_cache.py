"""Printed charts kept once drawn: kaleido's SVG of a figure, keyed by what determines it.

A report's figures come from a run's stored results, which never change, so the same figure
is printed again by every rebuild of a report and by every report that covers the same run.
Measured on the 2-core dev machine (benchmarks/bench_report_pdf.py): ~0.15-0.25 s of chromium
per chart, ~1.3-1.9 s for the ~9 charts of a report; a cache hit costs one indexed query.

The key is a SHA-256 of the printed figure's JSON (sorted keys) with its size and the versions
of everything that turns it into SVG: the studio's chart code (CHARTS_VERSION, which includes
plotly.py and so the plotly.js it bundles) and kaleido. Changing any of them misses the cache,
so a stale drawing is never shown. The table is capped at MAX_ENTRIES rows, oldest removed."""

import hashlib
import json
from importlib.metadata import version

from studio.reports.models import ChartSvg
from studio.runs.charts import CHARTS_VERSION

# ~10-40 kB per chart SVG (measured: 230 kB of base64 for the 9 charts of a report), so the
# cap keeps the table under ~100 MB while holding the charts of a few hundred reports.
MAX_ENTRIES = 3000
_DRAWN_BY = f"{CHARTS_VERSION}|kaleido {version('kaleido')}"


def svg_key(figure: dict, width: int, height: int) -> str:
    canonical = json.dumps(figure, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{_DRAWN_BY}|{width}x{height}|{canonical}".encode()).hexdigest()


def cached_svgs(keys: list[str]) -> dict[str, bytes]:
    rows = ChartSvg.objects.filter(key__in=set(keys)).values_list("key", "svg")
    return {key: bytes(svg) for key, svg in rows}


def store_svgs(drawn: dict[str, bytes]) -> None:
    if not drawn:
        return
    ChartSvg.objects.bulk_create(
        [ChartSvg(key=key, svg=svg) for key, svg in drawn.items()], ignore_conflicts=True
    )
    stale = ChartSvg.objects.order_by("-created_at", "-pk").values_list("pk", flat=True)[
        MAX_ENTRIES:
    ]
    ChartSvg.objects.filter(pk__in=list(stale)).delete()
