"""Roadmap engine: a phased infrastructure plan derived from the other engines' results.

    evaluate_roadmap(spec_doc, *, catalog_entries=None, baseline_doc=None) -> RoadmapResult

(Being built; see result.py for the typed result the studio reads.)
"""

from .result import RoadmapResult

__all__ = ["RoadmapResult"]
