"""Posture score (overall, per category, a letter grade with a critical cap) and coverage per
framework. Parameters (weights, grade bands, cap) come from ruleset.yaml.

Score (our design, not a standard; Prowler ThreatScore-like):
    pct = 100 x sum(weight x passed) / sum(weight)
over applicable automated checks (status PASS, FAIL or ACCEPTED_RISK; an accepted risk is a
decision, not a control, so it scores as not passed). MANUAL and NOT_APPLICABLE checks are not
scored. Fixing a failing check adds its weight to the numerator only, so the score never drops.
"""

from __future__ import annotations

from typing import Any

from .rules import FrameworkMapping, Manifest

PASS = "PASS"
FAIL = "FAIL"
MANUAL = "MANUAL"
NOT_APPLICABLE = "NOT_APPLICABLE"
ACCEPTED_RISK = "ACCEPTED_RISK"
STATUSES = (PASS, FAIL, MANUAL, NOT_APPLICABLE, ACCEPTED_RISK)
_SCORED = (PASS, FAIL, ACCEPTED_RISK)


def score_rule(manifest: Manifest) -> str:
    weights = ", ".join(f"{sev} {w}" for sev, w in manifest.severity_weights.items())
    bands = ", ".join(f"{g.grade} >= {g.min_pct:g}" for g in manifest.grades[:-1])
    return (
        "pct = 100 x sum(weight x passed) / sum(weight) over applicable automated checks "
        "(PASS, FAIL or ACCEPTED_RISK; an accepted risk scores as not passed; MANUAL and "
        f"NOT_APPLICABLE are not scored); weights: {weights}; grade: {bands}, else "
        f"{manifest.grades[-1].grade}; any critical FAIL caps the grade at "
        f"{manifest.critical_fail_cap}."
    )


def weighted_pct(results: list[dict[str, Any]], weights: dict[str, int]) -> float | None:
    """The severity-weighted pass percentage of `results`, None when nothing is scored."""
    total = passed = 0
    for result in results:
        if result["mode"] != "automated" or result["status"] not in _SCORED:
            continue
        weight = weights[result["severity"]]
        total += weight
        if result["status"] == PASS:
            passed += weight
    if total == 0:
        return None
    return round(100.0 * passed / total, 1)


def grade_for(pct: float | None, manifest: Manifest) -> str | None:
    if pct is None:
        return None
    for band in manifest.grades:
        if pct >= band.min_pct:
            return band.grade
    return manifest.grades[-1].grade


def score(results: list[dict[str, Any]], manifest: Manifest) -> dict[str, Any]:
    weights = manifest.severity_weights
    overall = weighted_pct(results, weights)
    uncapped = grade_for(overall, manifest)
    capped_by = [
        r["id"]
        for r in results
        if r["severity"] == "critical" and r["mode"] == "automated" and r["status"] == FAIL
    ]
    grade = uncapped
    if capped_by and grade is not None:
        order = [band.grade for band in manifest.grades]
        cap = manifest.critical_fail_cap
        grade = order[max(order.index(grade), order.index(cap))]
    per_category = {
        category.id: weighted_pct([r for r in results if r["category"] == category.id], weights)
        for category in manifest.categories
    }
    return {
        "overall_pct": overall,
        "grade": grade,
        "grade_uncapped": uncapped,
        "capped_by": capped_by,
        "per_category_pct": per_category,
        "weights": dict(weights),
        "rule": score_rule(manifest),
    }


COVERAGE_RULE = (
    "A requirement passes when every applicable check mapped to it is PASS; it is failing "
    "when one is FAIL or ACCEPTED_RISK, unverified when the rest await a human attestation "
    "(MANUAL), and not applicable when all its checks are. pct = passing / applicable."
)


def framework_coverage(
    results: list[dict[str, Any]], mappings: tuple[FrameworkMapping, ...]
) -> list[dict[str, Any]]:
    status = {r["id"]: r["status"] for r in results}
    coverage = []
    for mapping in mappings:
        passing: list[str] = []
        failing: list[str] = []
        unverified: list[str] = []
        not_applicable = 0
        for requirement in mapping.requirements:
            states = {status[c] for c in requirement.checks} - {NOT_APPLICABLE}
            if not states:
                not_applicable += 1
            elif states == {PASS}:
                passing.append(requirement.id)
            elif states & {FAIL, ACCEPTED_RISK}:
                failing.append(requirement.id)
            else:
                unverified.append(requirement.id)
        applicable = len(mapping.requirements) - not_applicable
        coverage.append(
            {
                "id": mapping.id,
                "framework": mapping.framework,
                "version": mapping.version,
                "requirements": len(mapping.requirements),
                "applicable": applicable,
                "passing": len(passing),
                "failing": len(failing),
                "unverified": len(unverified),
                "pct": round(100.0 * len(passing) / applicable, 1) if applicable else None,
                "failing_requirements": failing,
                "unverified_requirements": unverified,
                "source": mapping.source,
            }
        )
    return coverage
