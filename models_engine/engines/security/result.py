"""Typed result of the security engine: posture checks with evidence and framework mapping,
and a score. Facts established by other engines come from their typed results."""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart


class SecurityScore(ResultPart):
    overall_pct: float | None
    grade: str | None
    grade_uncapped: str | None
    capped_by: list[JsonDict | str]
    per_category_pct: dict[str, float | None]
    weights: dict[str, int]
    rule: str


class SecurityResult(EngineResult):
    rules_version: str
    as_of: str
    checks: list[JsonDict]
    summary: JsonDict
    by_severity: JsonDict
    by_category: JsonDict
    score: SecurityScore
    framework_coverage: list[JsonDict]
    framework_coverage_rule: str
    accepted_risks: list[JsonDict]
    facts: JsonDict
