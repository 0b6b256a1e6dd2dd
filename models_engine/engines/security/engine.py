"""evaluate_security: run every check of the rule set over one design."""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from typing import Any

from models_engine.spec import DesignSpec, design_to_dict, parse_design

from .conditions import Reader
from .facts import resolve_facts
from .risks import (
    ACTIVE,
    EXPIRED,
    NOT_NEEDED,
    SUPERSEDED,
    UNKNOWN_CHECK,
    AcceptedRisk,
    parse_accepted_risks,
    pick_active,
)
from .rules import SEVERITIES, CompiledCheck, RuleSet, load_rules
from .scoring import (
    ACCEPTED_RISK,
    COVERAGE_RULE,
    FAIL,
    MANUAL,
    NOT_APPLICABLE,
    PASS,
    STATUSES,
    framework_coverage,
    score,
)
from .spec_paths import read_path

# Per check: {mapping id: [requirement ids]}, and the ATLAS techniques [{id, name}] it addresses.
Mapped = tuple[dict[str, dict[str, list[str]]], dict[str, list[dict[str, str]]]]


def evaluate_security(
    spec: DesignSpec | dict[str, Any],
    *,
    facts: dict[str, Any] | None = None,
    accepted_risks: list[dict[str, Any]] | None = None,
    as_of: date | None = None,
) -> dict[str, Any]:
    """Posture of one design: every check's status and evidence, counts, score, grade and
    framework coverage.

    `facts` replace the facts derived from the spec (see facts.py for the names);
    `accepted_risks` are {check_id, reason, owner, expires} entries; `as_of` is the date the
    expiries are judged against (today when omitted). Raises ValueError for an unknown fact,
    a fact of the wrong type or a malformed accepted risk.
    """
    design = spec if isinstance(spec, DesignSpec) else parse_design(spec)
    rules = load_rules()
    today = as_of or date.today()
    document = design_to_dict(design)
    fact_values, fact_sources = resolve_facts(design, facts)
    risks = parse_accepted_risks(accepted_risks)

    def read(source: str, name: str) -> Any:
        return read_path(document, name) if source == "path" else fact_values[name]

    by_check: dict[str, list[AcceptedRisk]] = defaultdict(list)
    for risk in risks:
        by_check[risk.check_id].append(risk)
    mapped = _mappings_of(rules)
    results = [
        _run(check, read, mapped, by_check.get(check.record.id, []), today)
        for check in rules.checks
    ]
    manifest = rules.manifest
    categories = {category.id: category for category in manifest.categories}
    return {
        "rules_version": rules.version,
        "as_of": today.isoformat(),
        "checks": results,
        "summary": _counts(results),
        "by_severity": {
            severity: _counts([r for r in results if r["severity"] == severity])
            for severity in SEVERITIES
        },
        "by_category": {
            cid: {
                "title": category.title,
                "ai_specific": category.ai_specific,
                **_counts([r for r in results if r["category"] == cid]),
            }
            for cid, category in categories.items()
        },
        "score": score(results, manifest),
        "framework_coverage": framework_coverage(results, rules.mappings),
        "framework_coverage_rule": COVERAGE_RULE,
        "accepted_risks": _risk_report(risks, results, today),
        "facts": {
            name: {"value": value, "source": fact_sources[name]}
            for name, value in fact_values.items()
        },
    }


def _run(
    check: CompiledCheck,
    read: Reader,
    mapped: Mapped,
    risks: list[AcceptedRisk],
    today: date,
) -> dict[str, Any]:
    record = check.record
    evidence = {path: read("path", path) for path in record.evidence.paths}
    evidence.update({f"fact:{name}": read("fact", name) for name in record.evidence.facts})
    if check.applies_when is not None and not check.applies_when.holds(read):
        status = NOT_APPLICABLE
        detail = [f"applies only when {text}" for text in check.applies_when.failures(read)]
    elif record.mode == "manual":
        status, detail = MANUAL, ["a human must attest this control; the spec cannot show it"]
    elif check.condition is not None and check.condition.holds(read):
        status, detail = PASS, []
    else:
        status = FAIL
        detail = check.condition.failures(read) if check.condition is not None else []
    accepted = pick_active(risks, today) if status in (FAIL, MANUAL) else None
    expired = [risk.as_dict() for risk in risks if not risk.is_active(today)]
    frameworks, techniques = mapped
    return {
        "id": record.id,
        "title": record.title,
        "category": record.category,
        "severity": record.severity,
        "mode": record.mode,
        "status": ACCEPTED_RISK if accepted else status,
        "status_before_acceptance": status,
        "evidence": evidence,
        "detail": detail,
        "risk": record.risk,
        "remediation": record.remediation.text,
        "references": [ref.model_dump() for ref in record.remediation.references],
        "frameworks": frameworks.get(record.id, {}),
        "atlas_techniques": techniques.get(record.id, []),
        "accepted_risk": accepted.as_dict() if accepted else None,
        "expired_acceptances": expired,
    }


def _mappings_of(rules: RuleSet) -> Mapped:
    """Per check: {mapping id: [requirement ids]} and the ATLAS techniques it helps close."""
    frameworks: dict[str, dict[str, list[str]]] = defaultdict(dict)
    techniques: dict[str, dict[str, str]] = defaultdict(dict)
    for mapping in rules.mappings:
        names = {technique.id: technique.name for technique in mapping.techniques}
        for requirement in mapping.requirements:
            for check_id in requirement.checks:
                frameworks[check_id].setdefault(mapping.id, []).append(requirement.id)
                for technique_id in requirement.techniques:
                    techniques[check_id][technique_id] = names[technique_id]
        for technique in mapping.techniques:
            for check_id in technique.checks:
                techniques[check_id][technique.id] = technique.name
    return (
        dict(frameworks),
        {
            check_id: [{"id": tid, "name": name} for tid, name in sorted(found.items())]
            for check_id, found in techniques.items()
        },
    )


def _counts(results: list[dict[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys((status.lower() for status in STATUSES), 0)
    for result in results:
        counts[result["status"].lower()] += 1
    counts["total"] = len(results)
    return counts


def _risk_report(
    risks: list[AcceptedRisk], results: list[dict[str, Any]], today: date
) -> list[dict[str, Any]]:
    by_id = {result["id"]: result for result in results}
    report = []
    for risk in risks:
        result = by_id.get(risk.check_id)
        if result is None:
            state = UNKNOWN_CHECK
        elif not risk.is_active(today):
            state = EXPIRED
        elif result["accepted_risk"] is None:
            state = NOT_NEEDED
        elif result["accepted_risk"] == risk.as_dict():
            state = ACTIVE
        else:
            state = SUPERSEDED
        report.append({**risk.as_dict(), "state": state})
    return report


__all__ = ["ACCEPTED_RISK", "FAIL", "MANUAL", "NOT_APPLICABLE", "PASS", "evaluate_security"]
