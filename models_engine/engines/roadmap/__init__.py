"""Roadmap engine: a phased infrastructure plan derived from the other engines' results.

    evaluate_roadmap(spec_doc, *, catalog_entries=None, baseline_doc=None, results=None)
        -> RoadmapResult

Phases follow the domain background's roadmap (assessment, fabric upgrade, unified control
plane, training optimisation, checkpoint automation, cost governance); each is planned only
when engine findings put it there, and its effect is the engines re-run with its spec changes.
"""

from .engine import DEPENDS_ON, HEADLINE_METRICS, PHASE_ORDER, evaluate_roadmap
from .result import Action, MetricChange, Phase, RoadmapResult, Trigger
from .spec_changes import SpecChangeError, apply_spec_changes

__all__ = [
    "DEPENDS_ON",
    "HEADLINE_METRICS",
    "PHASE_ORDER",
    "Action",
    "MetricChange",
    "Phase",
    "RoadmapResult",
    "SpecChangeError",
    "Trigger",
    "apply_spec_changes",
    "evaluate_roadmap",
]
