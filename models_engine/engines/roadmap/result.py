"""Typed result of the roadmap engine: a phased plan derived from what the other engines found.

Phases follow the infrastructure roadmap of the domain background (assessment -> fabric
upgrade -> unified control plane -> training optimised for the topology -> checkpoint and
recovery automation -> cost model and governance). A phase is there because engine findings
put it there (`triggers`); a phase the design already satisfies is `done`, never invented.
The expected change of each phase is computed by re-running the engines on the design with
the phase's spec changes applied (cumulatively, in phase order), not guessed.
"""

from __future__ import annotations

from typing import Any, Literal

from models_engine.engines.result_base import EngineResult, ResultPart

PhaseId = Literal[
    "assessment",
    "fabric-upgrade",
    "control-plane",
    "training-optimisation",
    "checkpoint-automation",
    "cost-governance",
]


class Trigger(ResultPart):
    """An engine finding that puts a phase on the roadmap.

    `kind` says what `finding_id` names in the engine's typed result:
    - "finding": the id of an entry of that engine's findings list (`findings`,
      `residency_findings` for regions, `warnings` never);
    - "check": the id of a failing security check (`SecurityResult.checks[*].id`);
    - "metric": a dotted path into the engine's result JSON whose value (`value`) crossed the
      stated `threshold` (an engine assumption listed in the roadmap's assumptions);
    - "baseline-gap": a dotted spec path where the as-is design (`source="baseline"`) differs
      from the target design (`value` is the as-is value, `target` the target's).
    """

    engine: str
    finding_id: str
    severity: str
    message: str
    kind: Literal["finding", "check", "metric", "baseline-gap"] = "finding"
    source: Literal["design", "baseline"] = "design"
    value: float | str | bool | None = None
    threshold: float | None = None
    target: Any = None


class MetricChange(ResultPart):
    """One headline metric before and after a phase (both from engine runs)."""

    metric: str  # a headline key, e.g. "time_to_train_days"
    label: str
    unit: str
    before: float | None
    after: float | None
    better: Literal["lower", "higher"]
    # How the metric is counted when that is not the headline's own convention (MFU: one peak
    # on both sides of a precision change, see the roadmap engine's MFU_CONVENTION).
    convention: str = ""

    @property
    def change_fraction(self) -> float | None:
        if self.before in (None, 0) or self.after is None:
            return None
        return self.after / self.before - 1.0


class Action(ResultPart):
    id: str
    title: str
    detail: str
    # Dotted spec paths and the values the action sets (applied to compute the phase's effect).
    spec_changes: dict[str, Any]
    capex_usd: float | None
    opex_usd_per_year: float | None
    savings_usd_per_year: float | None
    payback_months: float | None
    source: str  # where the action and its figures come from
    # What the cost figures above are: "engine" (difference of two cost-engine runs),
    # "none" (no spec change or no cost change: nothing is priced for the work itself).
    cost_basis: Literal["engine", "none"] = "none"
    # BOM lines the action adds, removes or changes that have neither a catalog price nor an
    # allowance (the cost engine's unpriced_items of the runs around it): the capex / opex
    # above leave them out, so they are named rather than counted as zero.
    unpriced: list[str] = []


class Phase(ResultPart):
    id: PhaseId
    title: str
    # "not-proposed": the engines found a reason to look (triggers) but re-running them with
    # the phase's changes does not improve the headline; `not_proposed` says why.
    status: Literal["done", "planned", "not-proposed"]
    summary: str
    triggers: list[Trigger]
    actions: list[Action]
    depends_on: list[PhaseId]
    start_week: int
    duration_weeks: int
    # Sums of the actions the cost engine priced (cost_basis "engine"); None when none is:
    # the work is not priced, which is not a zero. Unpriced BOM lines are in `unpriced`.
    capex_usd: float | None
    opex_usd_per_year: float | None
    headline_change: list[MetricChange]
    # How the duration was chosen (the roadmap's duration table; an engine assumption).
    duration_basis: str = ""
    unpriced: list[str] = []  # every action's unpriced lines (see Action.unpriced)
    not_proposed: list[str] = []  # actions considered and not proposed, each with why


class RoadmapResult(EngineResult):
    design_name: str
    baseline_name: str | None  # the "as-is" design the plan starts from, if one was given
    phases: list[Phase]
    total_weeks: int
    # The headline's own figures (its MFU counts an FP8 run against the FP8 peak); the phases'
    # headline_change states its conventions per metric.
    headline_before: dict[str, float]
    headline_after: dict[str, float]  # every planned phase applied
    assumptions: list[str]
    sources: list[str]
    # Engine runs made to compute the plan (the design, the baseline, one per applied action).
    engine_runs: int = 0

    def phase(self, phase_id: str) -> Phase:
        return next(p for p in self.phases if p.id == phase_id)
