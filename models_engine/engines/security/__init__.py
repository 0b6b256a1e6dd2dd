"""Security-posture engine: design-time checks over a design spec, Prowler / kube-bench style.

Checks are data (checks/*.yaml, one record each, evaluated by one generic evaluator with the
small condition language of conditions.py); framework mappings are data too (one file per
framework in mappings/); weights, grade bands and categories live in ruleset.yaml. Facts that
other engines know better (facts.py) can be passed in; otherwise they are derived from the
spec. Entry point::

    evaluate_security(spec, facts=None, accepted_risks=None) -> dict
"""

from .engine import evaluate_security
from .facts import FACTS, derive_facts
from .rules import RulesError, load_rules

__all__ = ["FACTS", "RulesError", "derive_facts", "evaluate_security", "load_rules"]
