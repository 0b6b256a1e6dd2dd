"""The report's PDF: the report template rendered by WeasyPrint, charts exported to SVG by
kaleido 1.x through Debian's chromium.

One kaleido (one headless chromium) is kept per worker process and reused by every PDF: a cold
start costs ~1.6-2.6 s, a warm chart ~0.15-0.2 s (2-core dev machine). Two tabs drawing at once
(`asyncio.gather`) beat one tab drawing in turn: 7 print figures in 1.0-1.2 s against 1.3-1.45 s
wall, same CPU (measured with the machine's load at 8-10); the earlier "more tabs do not help"
measurement awaited each chart in turn, so the second tab never worked. Charts already drawn
come from the SVG cache (`svg_cache`). The kaleido lives in a daemon thread running its own
asyncio loop; `export_svgs` hands it the figures and waits.

Chart labels are written for print: DejaVu Sans (the bundled font), HTML tags such as `<sup>`
and emoji replaced by plain text, since WeasyPrint draws SVG text, not HTML inside SVG."""

import asyncio
import base64
import copy
import logging
import os
import re
import shutil
import threading
from pathlib import Path

from django.conf import settings
from django.template.loader import render_to_string

from studio.reports.document import report_context
from studio.reports.svg_cache import cached_svgs, store_svgs, svg_key

logger = logging.getLogger(__name__)
# The report shares the web stylesheet: WeasyPrint warns once per screen-only rule it skips
# (sticky headers, scrolling tables) on every build; those warnings say nothing about a report.
logging.getLogger("weasyprint").setLevel(logging.ERROR)

FONT_FAMILY = "DejaVu Sans, Verdana, sans-serif"
CHART_WIDTH, CHART_HEIGHT = 900, 460
KALEIDO_TABS = 2  # one per core of the 2-core worker (see the module doc)
CSS_PATH = Path(settings.BASE_DIR) / "frontend" / "static" / "css" / "report.css"

_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f]")
_SUP = re.compile(r"<sup>(.*?)</sup>", re.I)
_HOVER = re.compile(r"\s*·\s*hover[^·<]*", re.I)  # "· hover a box for its tier"


def chromium_path() -> str | None:
    return (
        os.environ.get("STUDIO_CHROMIUM")
        or os.environ.get("BROWSER_PATH")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


def _plain(value):
    if isinstance(value, str):
        return _EMOJI.sub("", _SUP.sub(r"^\1", value))
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def print_figure(spec: dict) -> dict:
    """The figure as printed: plain-text labels, the bundled font, a fixed size, white paper,
    the title hung from the top edge."""
    figure = _plain(copy.deepcopy(spec))
    layout = figure.setdefault("layout", {})
    layout["font"] = {**(layout.get("font") or {}), "family": FONT_FAMILY}
    layout["paper_bgcolor"] = "white"
    if isinstance(layout.get("title"), dict):
        layout["title"] = _print_title(layout["title"])
    return figure


def _print_title(title: dict) -> dict:
    """Kaleido exports a title with `automargin` at y=0 of the canvas, so the first of a
    two-line title (main line, then the detail line of `titled_layout`) is drawn above the
    page (seen in chromium itself, not only in WeasyPrint). Anchored at the container's top
    instead, in the top margin the chart already reserves. Hover hints mean nothing on paper."""
    text = title.get("text")
    if isinstance(text, str):
        text = _HOVER.sub("", text)
    return {
        **title,
        "text": text,
        "automargin": False,
        "yref": "container",
        "y": 1,
        "yanchor": "top",
        "pad": {"t": 12},
    }


class _Exporter:
    """One persistent kaleido per process (see the module doc)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kaleido = None

    def _start(self):
        import kaleido

        logging.getLogger("choreographer").setLevel(logging.WARNING)
        logging.getLogger("kaleido").setLevel(logging.WARNING)
        logging.getLogger("logistro").setLevel(logging.WARNING)
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="kaleido", daemon=True).start()

        async def open_kaleido():
            k = kaleido.Kaleido(n=KALEIDO_TABS, timeout=60, path=chromium_path(), mathjax=False)
            await k.open()
            return k

        self._kaleido = asyncio.run_coroutine_threadsafe(open_kaleido(), loop).result(120)
        self._loop = loop

    def svgs(self, figures: list[tuple[dict, int, int]]) -> list[bytes]:
        """SVGs of (figure, width, height) triples, in order."""
        with self._lock:
            if self._kaleido is None:
                self._start()

            async def render():
                return await asyncio.gather(  # in order, drawn by the free tabs at once
                    *(
                        self._kaleido.calc_fig(
                            spec, opts={"format": "svg", "width": width, "height": height}
                        )
                        for spec, width, height in figures
                    )
                )

            try:
                return asyncio.run_coroutine_threadsafe(render(), self._loop).result(300)
            except Exception:
                self.close()  # a broken browser is started afresh next time
                raise

    def close(self):
        if self._kaleido is not None and self._loop is not None:
            try:
                asyncio.run_coroutine_threadsafe(self._kaleido.close(), self._loop).result(30)
            except Exception:  # closing a broken browser: nothing more to do
                logger.warning("kaleido did not close cleanly", exc_info=True)
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._kaleido = self._loop = None


EXPORTER = _Exporter()


def warm_up() -> None:
    """Open the persistent kaleido (chromium) and import WeasyPrint (pango, fonts) now."""
    logger = logging.getLogger(__name__)
    try:
        import weasyprint  # noqa: F401

        EXPORTER.svgs([({"data": [], "layout": {}}, 200, 100)])
    except Exception:  # a warm-up failure only means the first PDF starts cold
        logger.warning("PDF tools warm-up failed; the first report will start them", exc_info=True)


def printed_size(figure: dict) -> tuple[int, int]:
    layout = figure.get("layout") or {}
    return layout.get("width") or CHART_WIDTH, layout.get("height") or CHART_HEIGHT


def export_svgs(specs: list[dict]) -> list[bytes]:
    """The specs' SVGs: drawn ones from the cache, the rest by kaleido (one batch), then kept."""
    figures = [(f, *printed_size(f)) for f in map(print_figure, specs)]
    keys = [svg_key(*figure) for figure in figures]
    found = cached_svgs(keys)
    missing = {key: figure for key, figure in zip(keys, figures, strict=True) if key not in found}
    drawn = {}
    if missing:
        drawn = dict(zip(missing, EXPORTER.svgs(list(missing.values())), strict=True))
    store_svgs(drawn)
    return [found.get(key) or drawn[key] for key in keys]


def svg_uri(svg: bytes) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode()


def attach_svgs(context: dict) -> None:
    """Give every figure of the report context its SVG (one batch through kaleido)."""
    figures = [f for s in context["sections"] for f in s["figures"]]
    if context["roadmap"]:
        figures.insert(0, context["roadmap"]["figure"])
    for figure, svg in zip(figures, export_svgs([f["spec"] for f in figures]), strict=True):
        figure["svg_uri"] = svg_uri(svg)


def render_report_html(report) -> str:
    context = report_context(report, for_pdf=True)
    attach_svgs(context)
    context["studio_css"] = (CSS_PATH.parent / "studio.css").read_text()
    context["report_css"] = CSS_PATH.read_text()
    return render_to_string("reports/report_pdf.html", context)


def render_report_pdf(report) -> tuple[bytes, int]:
    """(PDF bytes, page count)."""
    from weasyprint import HTML  # heavy (pango, fonts): loaded by the process that builds PDFs

    html = render_report_html(report)
    document = HTML(string=html, base_url=str(settings.BASE_DIR)).render()
    return document.write_pdf(), len(document.pages)
