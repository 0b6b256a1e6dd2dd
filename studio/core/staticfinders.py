"""Serve plotly.min.js from the installed plotly package, so the chart library always matches
the Python package that builds the figures and no CDN is involved."""

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_STATIC_PATH = "vendor/plotly.min.js"
_PACKAGE_DATA = Path(plotly.__file__).parent / "package_data"


class PlotlyJsFinder(BaseFinder):
    def check(self, **kwargs):
        return []

    def find(self, path, find_all=False, **kwargs):
        if path != PLOTLY_STATIC_PATH:
            return [] if find_all else None
        match = str(_PACKAGE_DATA / "plotly.min.js")
        return [match] if find_all else match

    def list(self, ignore_patterns):
        storage = FileSystemStorage(location=str(_PACKAGE_DATA))
        storage.prefix = "vendor"
        yield "plotly.min.js", storage
