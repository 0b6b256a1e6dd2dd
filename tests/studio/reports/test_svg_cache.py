"""The printed charts' SVG cache: a figure drawn once is not sent to chromium again, and any
change to the figure (or its size) is a different drawing."""

import pytest

from studio.reports import pdf
from studio.reports.models import ChartSvg
from studio.reports.svg_cache import store_svgs, svg_key

pytestmark = pytest.mark.django_db


def bar(title: str) -> dict:
    return {"data": [{"type": "bar", "x": ["a", "b"], "y": [1, 2]}], "layout": {"title": title}}


class FakeExporter:
    """Stands in for kaleido: records what it was asked to draw."""

    def __init__(self):
        self.asked: list[dict] = []

    def svgs(self, figures):
        self.asked += [figure for figure, _, _ in figures]
        return [f"<svg>{figure['layout']['title']}</svg>".encode() for figure, _, _ in figures]


@pytest.fixture
def exporter(monkeypatch):
    fake = FakeExporter()
    monkeypatch.setattr(pdf, "EXPORTER", fake)
    return fake


def test_a_figure_is_drawn_once_then_read_from_the_cache(exporter):
    first = pdf.export_svgs([bar("one"), bar("two")])
    assert len(exporter.asked) == 2
    again = pdf.export_svgs([bar("two"), bar("one"), bar("three")])
    assert [f["layout"]["title"] for f in exporter.asked] == ["one", "two", "three"]
    assert again[:2] == [first[1], first[0]]
    printed = [pdf.print_figure(bar(t)) for t in ("one", "two", "three")]
    keys = [svg_key(f, *pdf.printed_size(f)) for f in printed]
    assert ChartSvg.objects.filter(key__in=keys).count() == 3


def test_the_key_follows_the_figure_and_its_size():
    figure = bar("one")
    assert svg_key(figure, 900, 460) == svg_key(bar("one"), 900, 460)
    assert svg_key(figure, 900, 460) != svg_key(figure, 900, 461)
    changed = bar("one")
    changed["data"][0]["y"] = [1, 3]
    assert svg_key(changed, 900, 460) != svg_key(figure, 900, 460)


def test_the_cache_keeps_the_newest_entries_only(monkeypatch):
    monkeypatch.setattr("studio.reports.svg_cache.MAX_ENTRIES", 3)
    store_svgs({f"k{i}": b"<svg/>" for i in range(5)})
    store_svgs({"newest": b"<svg/>"})
    keys = set(ChartSvg.objects.values_list("key", flat=True))
    assert len(keys) == 3 and "newest" in keys
