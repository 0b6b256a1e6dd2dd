"""Documentation pages generated from the engine's own schema, so they never drift."""

from itertools import groupby

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from models_engine import SPEC_VERSION, field_docs


def _bounds_text(bounds: dict) -> str:
    words = {
        "ge": "≥",
        "gt": ">",
        "le": "≤",
        "lt": "<",
        "min_length": "length ≥",
        "max_length": "length ≤",
    }
    return ", ".join(f"{words.get(k, k)} {v}" for k, v in bounds.items())


@login_required
def spec_docs(request):
    rows = [{**row, "bounds_text": _bounds_text(row["bounds"] or {})} for row in field_docs()]
    sections = [
        {"name": name, "fields": list(fields)}
        for name, fields in groupby(
            rows, key=lambda r: r["path"].split(".")[0] if "." in r["path"] else "design"
        )
    ]
    return render(request, "docs/spec.html", {"sections": sections, "spec_version": SPEC_VERSION})
