"""`evaluate_roadmap`: a phased plan from a design's results (and an optional as-is design).

1. The design (and the baseline) are validated and run through the pipeline (or the given
   typed results are reused).
2. Each phase reads the results (`phases.py`): triggers and actions with spec changes.
3. The actions of the planned phases are applied cumulatively, in phase order, to the starting
   document (the baseline when given, else the design); each variant is validated and re-run,
   an action the design cannot take is dropped with a note. Each phase's `headline_change`
   compares the headline before and after its actions; each action's capex / opex / savings
   are the cost engine's differences between the runs around it.
4. Durations come from a small table (an engine assumption), start weeks from the dependency
   graph (earliest start = the latest end of the phases it depends on).
"""

from __future__ import annotations

import math
from typing import Any

from models_engine.engines.cost.result import CostResult
from models_engine.engines.result_base import EngineResult
from models_engine.headline import headline
from models_engine.pipeline import run_engines
from models_engine.spec import SpecValidationError, design_to_dict, flatten_spec
from models_engine.validate import validate_design

from .phases import (
    DECIDERS,
    MIN_STEP_GAIN,
    THRESHOLDS,
    ActionDraft,
    Design,
    PhaseDraft,
    where_bound,
)
from .result import Action, MetricChange, Phase, RoadmapResult, Trigger
from .spec_changes import SpecChangeError, apply_spec_changes

PHASE_TITLES = {
    "assessment": "Technical assessment",
    "fabric-upgrade": "Fabric upgrade: RDMA, >= 100G per GPU, telemetry",
    "control-plane": "Unified control plane: identity, policy, metadata, storage tiering",
    "training-optimisation": "Training optimised for the topology",
    "checkpoint-automation": "Checkpoint and recovery automation",
    "cost-governance": "Cost model and governance",
}
# The seed's order: assessment first; the fabric and the control plane after it; training
# optimisation on the upgraded fabric; checkpoint automation on the control plane's storage
# tiering; cost governance once the assessment has priced the estate.
DEPENDS_ON: dict[str, list[str]] = {
    "assessment": [],
    "fabric-upgrade": ["assessment"],
    "control-plane": ["assessment"],
    "training-optimisation": ["fabric-upgrade"],
    "checkpoint-automation": ["control-plane"],
    "cost-governance": ["assessment"],
}
PHASE_ORDER = list(PHASE_TITLES)
# Duration table, weeks (an engine assumption: typical lead times, not measured).
DURATION_WEEKS: dict[str, tuple[int, str]] = {
    "assessment": (4, "inventory, quotes for unpriced lines, manual security checks"),
    "fabric-upgrade": (12, "hardware: NIC / optics / switch lead time plus a rolling cut-over"),
    "fabric-upgrade-config": (4, "configuration only (no BOM change): staged roll-out"),
    "control-plane": (10, "identity federation, policy, data catalog and storage tiering"),
    "training-optimisation": (6, "convergence validation of each change against a reference"),
    "checkpoint-automation": (4, "checkpoint library settings, lifecycle, recovery drills"),
    "cost-governance": (4, "cost model, budgets and utilisation reporting"),
}
# Metrics compared before / after a phase: headline key -> (label, unit, better).
HEADLINE_METRICS: dict[str, tuple[str, str, str]] = {
    "time_to_train_days": ("Time to train (with failures)", "days", "lower"),
    "step_time_s": ("Step time", "s", "lower"),
    "mfu_bf16_peak": ("MFU (vs the BF16 peak)", "fraction", "higher"),
    "goodput": ("Goodput", "fraction", "higher"),
    "tokens_per_s": ("Throughput", "tokens/s", "higher"),
    "capex_usd": ("Capex", "USD", "lower"),
    "tco_usd": ("TCO (NPV)", "USD", "lower"),
    "usd_per_gpu_hour": ("Cost per delivered GPU-hour", "USD/GPU-h", "lower"),
    "training_run_usd": ("Cost of one training run", "USD", "lower"),
    "usd_per_million_tokens": ("Cost per million tokens", "USD", "lower"),
    "security_score_pct": ("Security score", "%", "higher"),
}
# MFU in the expected changes: the performance engine's model TFLOP/s per GPU over the GPU's
# dense BF16 peak, before and after every phase. The engine's own MFU counts an FP8 run
# against the FP8 peak (2x the BF16 peak on H100), so across a switch to FP8 a faster step
# would read as a lower MFU; one peak on both sides leaves the change the step's.
MFU_KEY = "mfu_bf16_peak"
MFU_CONVENTION = (
    "model FLOPs per GPU per second / the GPU's dense BF16 peak, on both sides (the "
    "performance engine's MFU counts FP8 runs against the FP8 peak)"
)
# Savings of a faster run are counted for this many runs a year (an engine assumption).
RUNS_PER_YEAR = 1
COST_EPSILON_USD = 1.0
# Spec paths and the phase a baseline -> target difference belongs to (first match wins).
BASELINE_PHASE_PATHS: list[tuple[str, str]] = [
    ("fabric.", "fabric-upgrade"),
    ("security.", "control-plane"),
    ("storage.checkpoint.", "checkpoint-automation"),
    ("storage.", "control-plane"),
    ("workload.precision", "training-optimisation"),
    ("workload.parallelism", "training-optimisation"),
    ("regions.cross_region_strategy", "training-optimisation"),
    ("regions.averaging_interval_steps", "training-optimisation"),
    ("economics.", "cost-governance"),
]
SOURCES = [
    "Domain background: infrastructure roadmap (assessment, fabric upgrade, unified control "
    "plane, training optimisation, checkpoint automation, cost governance), "
    "shared/seeds/000_33b0db2b69bbc163.txt",
    "Every headline change: the Cluster Studio engines re-run on the design with the phase's "
    "spec changes applied (models_engine.pipeline.run_engines)",
]


class _Runner:
    """Validates and runs designs, counting the runs."""

    def __init__(self, catalog_entries):
        self.catalog_entries = catalog_entries
        self.runs = 0

    def design(self, doc: dict, results: dict[str, EngineResult] | None = None) -> Design:
        valid = validate_design(doc, self.catalog_entries)
        if results is None:
            results = run_engines(valid.spec, valid.catalog, valid.gpu)
            self.runs += 1
        return Design(
            spec=valid.spec, doc=design_to_dict(valid.spec), gpu=valid.gpu, results=results
        )


def evaluate_roadmap(
    spec_doc: dict,
    *,
    catalog_entries: dict[str, list[dict]] | None = None,
    baseline_doc: dict | None = None,
    results: dict[str, EngineResult] | None = None,
) -> RoadmapResult:
    """The phased roadmap of `spec_doc` (raises SpecValidationError for an invalid design).

    `results` are the design's typed results by engine name (`run_engines`), reused instead of
    a first run; `baseline_doc` is the as-is design the plan starts from.
    """
    runner = _Runner(catalog_entries)
    design = runner.design(spec_doc, results)
    baseline = runner.design(baseline_doc) if baseline_doc is not None else None
    assumptions = [
        "Phase durations are an engine assumption (typical lead times, not measured): "
        + "; ".join(f"{k}: {w} weeks ({basis})" for k, (w, basis) in DURATION_WEEKS.items()),
        "Metric triggers use these thresholds (engine assumptions): "
        + "; ".join(f"{k} {v}" for k, v in THRESHOLDS.items()),
        f"Savings of a cheaper training run count {RUNS_PER_YEAR} run(s) a year of this size; "
        "opex savings are the cost engine's opex difference.",
        f"MFU in the phases' expected changes: {MFU_CONVENTION}.",
        "Actions with no spec change (telemetry, scheduling, drills, governance processes) are "
        "not modelled: they change no headline number and carry no cost figure.",
    ]
    drafts = {phase: DECIDERS[phase](design) for phase in PHASE_ORDER}
    if baseline is not None:
        _baseline_gaps(baseline, design, drafts, assumptions)
    start = baseline if baseline is not None else design
    phases, after = _apply_phases(runner, start, drafts, assumptions)
    _schedule(phases)
    return RoadmapResult(
        design_name=design.spec.name,
        baseline_name=baseline.spec.name if baseline is not None else None,
        phases=phases,
        total_weeks=max((p.start_week + p.duration_weeks for p in phases), default=0),
        headline_before=_numeric(headline(start.results)),
        headline_after=_numeric(headline(after.results)),
        assumptions=assumptions,
        sources=SOURCES,
        engine_runs=runner.runs,
    )


def _numeric(figures: dict) -> dict[str, float]:
    return {
        k: float(v)
        for k, v in figures.items()
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
    }


# --- baseline -----------------------------------------------------------------------------


def _baseline_gaps(
    baseline: Design, target: Design, drafts: dict[str, PhaseDraft], assumptions: list[str]
) -> None:
    """What the as-is design lacks vs the target: a trigger per differing spec path and one
    action per phase that adopts the target's values (applied first in its phase)."""
    old, new = flatten_spec(baseline.doc), flatten_spec(target.doc)
    per_phase: dict[str, dict[str, Any]] = {}
    outside: list[str] = []
    for path in sorted(set(old) | set(new)):
        if path in ("name", "description") or old.get(path) == new.get(path):
            continue
        phase = next((ph for prefix, ph in BASELINE_PHASE_PATHS if path.startswith(prefix)), None)
        if phase is None:
            outside.append(path)
            continue
        per_phase.setdefault(phase, {})[path] = new.get(path)
        drafts[phase].triggers.append(
            Trigger(
                engine="spec",
                finding_id=path,
                severity="medium",
                message=f"as-is {old.get(path)!r}, target {new.get(path)!r}",
                kind="baseline-gap",
                source="baseline",
                value=_scalar(old.get(path)),
                target=new.get(path),
            )
        )
    _, as_is = _per_gpu(baseline)
    _, to_be = _per_gpu(target)
    if as_is < to_be:
        site, _ = _per_gpu(baseline)
        drafts["fabric-upgrade"].triggers.insert(
            0,
            Trigger(
                engine="fabric",
                finding_id=(
                    f"sites.{site}.network_for_performance.scale_out_line_rate_gbit_per_s_per_gpu"
                ),
                severity="high",
                message=f"as-is {as_is:g} Gb/s per GPU, target {to_be:g} Gb/s per GPU",
                kind="metric",
                source="baseline",
                value=as_is,
                threshold=to_be,
            ),
        )
    for phase, changes in per_phase.items():
        changes = _collapse_lists(changes, target.doc)
        drafts[phase].actions.insert(
            0,
            ActionDraft(
                id=f"{phase}-adopt-target",
                title="Move the as-is design to the target's settings",
                detail=", ".join(f"{k} = {v!r}" for k, v in changes.items()),
                spec_changes=changes,
                source="baseline vs target design (spec diff)",
            ),
        )
    if outside:
        assumptions.append(
            "Differences between the as-is and the target design outside the six phases "
            f"(the build itself) are not applied by the roadmap: {', '.join(outside)}"
        )


def _per_gpu(d: Design) -> tuple[int, float]:
    rates = [
        s.network_for_performance.scale_out_line_rate_gbit_per_s_per_gpu for s in d.fabric.sites
    ]
    index = min(range(len(rates)), key=rates.__getitem__)
    return index, rates[index]


def _scalar(value: Any) -> float | str | bool | None:
    return value if isinstance(value, float | int | str | bool) or value is None else str(value)


def _collapse_lists(changes: dict[str, Any], target_doc: dict) -> dict[str, Any]:
    """Indexed list paths (`storage.tiers.1.capacity_tb`) become the target's whole list, so a
    list that grows or shrinks is applied as one value."""
    out: dict[str, Any] = {}
    for path, value in changes.items():
        parts = path.split(".")
        cut = next((i for i, part in enumerate(parts) if part.isdigit()), None)
        if cut is None:
            out[path] = value
            continue
        node: Any = target_doc
        for part in parts[:cut]:
            node = node[part]
        out[".".join(parts[:cut])] = node
    return out


# --- applying the phases ------------------------------------------------------------------


def _apply_phases(
    runner: _Runner, start: Design, drafts: dict[str, PhaseDraft], assumptions: list[str]
) -> tuple[list[Phase], Design]:
    current = start
    phases: list[Phase] = []
    for phase_id in PHASE_ORDER:
        draft = drafts[phase_id]
        if not draft.triggers:
            phases.append(_phase(phase_id, "done", draft, [], [], "; ".join(draft.notes)))
            continue
        work = _PhaseWork(runner, current, phase_id, assumptions)
        for action in draft.actions:
            work.take(action)
        work.retry_deferred()
        if work.declined and not any(a.spec_changes for a in work.actions):
            phases.append(_not_proposed(phase_id, draft, work.declined))
            continue
        summary = _summary(phase_id, draft, work.actions)
        change = _changes(current, work.current)
        phases.append(
            _phase(phase_id, "planned", draft, work.actions, change, summary, work.hardware)
        )
        if work.declined:
            phases[-1] = phases[-1].model_copy(update={"not_proposed": work.declined})
        current = work.current
    return phases, current


class _PhaseWork:
    """One phase's actions applied in order to the design: each spec change validated and
    re-run; a bandwidth action that does not shorten the step waits for the phase's other
    changes, is tried once more, and is declined with the reason if it still does not."""

    def __init__(self, runner: _Runner, start: Design, phase_id: str, assumptions: list[str]):
        self.runner, self.current, self.phase_id = runner, start, phase_id
        self.assumptions = assumptions
        self.actions: list[Action] = []
        self.hardware = False
        # (action, its changes, the design it was tried on, the re-run it gave)
        self.deferred: list[tuple[ActionDraft, dict, Design, Design]] = []
        self.declined: list[str] = []

    def take(self, action: ActionDraft, *, last_try: bool = False) -> None:
        changes = {
            path: value
            for path, value in action.spec_changes.items()
            if _get(self.current.doc, path) != value
        }
        if not changes:
            if not action.spec_changes:
                self.actions.append(_action(action, {}, None, None))
            return  # else an earlier phase already made these changes
        try:
            variant = self.runner.design(apply_spec_changes(self.current.doc, changes))
        except (SpecValidationError, SpecChangeError) as error:
            self.assumptions.append(
                f"{self.phase_id}: action '{action.id}' dropped, its change is not valid for "
                f"this design ({_short(error)})"
            )
            return
        if action.must_shorten_step and not _shortens_step(self.current, variant):
            if last_try:
                self.declined.append(_declined(action, changes, self.current, variant))
            else:
                self.deferred.append((action, changes, self.current, variant))
            return
        self.actions.append(_action(action, changes, self.current, variant))
        self.hardware |= _capex_changed(self.current, variant)
        self.current = variant

    def retry_deferred(self) -> None:
        """A bandwidth action may only pay once another limit is lifted (a non-blocking
        fabric before faster NICs): each deferred one is tried on the phase's final design."""
        deferred, self.deferred = self.deferred, []
        for action, changes, tried_on, variant in deferred:
            if tried_on is self.current:  # nothing changed since: the first try stands
                self.declined.append(_declined(action, changes, tried_on, variant))
            else:
                self.take(action, last_try=True)
        if not any(a.spec_changes for a in self.actions):
            # Nothing changes the design: work without a spec change (telemetry) is not
            # proposed on its own when the phase's reason to exist was declined.
            self.actions = [] if self.declined else self.actions


def _step(design: Design) -> float | None:
    return _float(headline(design.results).get("step_time_s"))


def _shortens_step(before: Design, after: Design) -> bool:
    old, new = _step(before), _step(after)
    if old is None or new is None:
        return True  # no step to judge by (serving): the action stands on its trigger
    return new <= old * (1.0 - MIN_STEP_GAIN)


def _declined(action: ActionDraft, changes: dict, before: Design, after: Design) -> str:
    old, new = _step(before), _step(after)
    applied = ", ".join(f"{k} = {v}" for k, v in changes.items())
    return (
        f"{action.title}: not proposed. The engines re-run with {applied} give a step of "
        f"{new:.3g} s against {old:.3g} s ({new / old - 1:+.1%}; at least "
        f"-{MIN_STEP_GAIN:.0%} would justify it): {where_bound(before.performance)}."
    )


def _not_proposed(phase_id: str, draft: PhaseDraft, declined: list[str]) -> Phase:
    return Phase(
        id=phase_id,
        title=PHASE_TITLES[phase_id],
        status="not-proposed",
        summary="Not proposed: no change the engines tried improves the headline",
        triggers=draft.triggers,
        actions=[],
        depends_on=DEPENDS_ON[phase_id],
        start_week=0,
        duration_weeks=0,
        capex_usd=None,
        opex_usd_per_year=None,
        headline_change=[],
        duration_basis="not proposed: no work",
        not_proposed=declined,
    )


def _short(error: Exception) -> str:
    text = str(error).replace("\n", " ")
    return text if len(text) <= 300 else text[:297] + "..."


def _get(doc: dict, path: str) -> Any:
    node: Any = doc
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return _MISSING
    return node


_MISSING = object()


def _capex_changed(before: Design, after: Design) -> bool:
    change = after.cost.capex["total_usd"] - before.cost.capex["total_usd"]
    return abs(change) > COST_EPSILON_USD


def _action(
    draft: ActionDraft, changes: dict, before: Design | None, after: Design | None
) -> Action:
    capex = opex = savings = payback = None
    basis = "none"
    unpriced: list[str] = []
    if before is not None and after is not None:
        unpriced = _unpriced_change(before.cost, after.cost)
        b, a = before.cost.summary, after.cost.summary
        # Capex as the headline shows it (the owned build's total, cost engine).
        d_capex = after.cost.capex["total_usd"] - before.cost.capex["total_usd"]
        d_opex = a.opex_usd_per_year - b.opex_usd_per_year
        run_b, run_a = b.training_run_cost_usd, a.training_run_cost_usd
        d_run = (run_b - run_a) if run_b is not None and run_a is not None else 0.0
        if abs(d_capex) > COST_EPSILON_USD or abs(d_opex) > COST_EPSILON_USD:
            basis = "engine"
            capex = d_capex
            opex = d_opex
        saving = -d_opex + d_run * RUNS_PER_YEAR
        if abs(saving) > COST_EPSILON_USD or basis == "engine":
            basis = "engine"
            capex = d_capex if capex is None else capex
            opex = d_opex if opex is None else opex
            savings = saving
            if saving > 0:
                payback = max(d_capex, 0.0) / saving * 12.0
    return Action(
        id=draft.id,
        title=draft.title,
        detail=draft.detail,
        spec_changes=changes,
        capex_usd=capex,
        opex_usd_per_year=opex,
        savings_usd_per_year=savings,
        payback_months=payback,
        source=draft.source,
        cost_basis=basis,
        unpriced=unpriced,
    )


def _unpriced_lines(cost: CostResult) -> dict[str, tuple[float, str]]:
    """The cost engine's unpriced lines that no allowance covers: item -> (quantity, unit)."""
    lines: dict[str, tuple[float, str]] = {}
    for row in cost.unpriced_items:
        if not row.get("covered_by_allowance"):
            quantity, unit = lines.get(row["item"], (0.0, row["unit"]))
            lines[row["item"]] = (quantity + row["quantity"], unit)
    return lines


def _unpriced_change(before: CostResult, after: CostResult) -> list[str]:
    """Unpriced lines an action adds, changes or removes: the price of each is missing from
    the action's cost difference."""
    old, new = _unpriced_lines(before), _unpriced_lines(after)
    out = []
    for item in sorted(set(old) | set(new)):
        if item not in old:
            out.append(f"{item} ({new[item][0]:.3g} {new[item][1]})")
        elif item not in new:
            out.append(f"{item} (removed)")
        elif abs(new[item][0] - old[item][0]) > 1e-9 * max(1.0, abs(old[item][0])):
            out.append(f"{item} ({old[item][0]:.3g} -> {new[item][0]:.3g} {new[item][1]})")
    return out


def _mfu_at_bf16_peak(design: Design) -> float | None:
    return design.performance.tflops_per_gpu / design.gpu.bf16_dense_tflops


def _changes(before: Design, after: Design) -> list[MetricChange]:
    old, new = headline(before.results), headline(after.results)
    old[MFU_KEY], new[MFU_KEY] = _mfu_at_bf16_peak(before), _mfu_at_bf16_peak(after)
    out = []
    for key, (label, unit, better) in HEADLINE_METRICS.items():
        if key not in old and key not in new:
            continue
        out.append(
            MetricChange(
                metric=key,
                label=label,
                unit=unit,
                before=_float(old.get(key)),
                after=_float(new.get(key)),
                better=better,
                convention=MFU_CONVENTION if key == MFU_KEY else "",
            )
        )
    return out


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _summary(phase_id: str, draft: PhaseDraft, actions: list[Action]) -> str:
    engines = sorted({t.engine for t in draft.triggers})
    changed = [a for a in actions if a.spec_changes]
    return (
        f"{len(draft.triggers)} trigger(s) from {', '.join(engines)}; {len(actions)} action(s), "
        f"{len(changed)} with spec changes re-run through the engines"
    )


def _phase(
    phase_id: str,
    status: str,
    draft: PhaseDraft,
    actions: list[Action],
    change: list[MetricChange],
    summary: str,
    hardware: bool = False,
) -> Phase:
    if status == "done":
        weeks, basis = 0, "already satisfied: no work"
    elif phase_id == "fabric-upgrade" and not hardware:
        weeks, basis = DURATION_WEEKS["fabric-upgrade-config"]
    else:
        weeks, basis = DURATION_WEEKS[phase_id]
    return Phase(
        id=phase_id,
        title=PHASE_TITLES[phase_id],
        status=status,
        summary=summary if status == "planned" else f"Done: {summary}",
        triggers=draft.triggers if status == "planned" else [],
        actions=actions,
        depends_on=DEPENDS_ON[phase_id],
        start_week=0,
        duration_weeks=weeks,
        capex_usd=_priced_sum([a.capex_usd for a in actions if a.cost_basis == "engine"]),
        opex_usd_per_year=_priced_sum(
            [a.opex_usd_per_year for a in actions if a.cost_basis == "engine"]
        ),
        headline_change=change,
        duration_basis=basis,
        unpriced=list(dict.fromkeys(line for a in actions for line in a.unpriced)),
    )


def _priced_sum(values: list[float | None]) -> float | None:
    """The sum of the priced figures; None when nothing was priced (not a zero)."""
    return sum(v or 0.0 for v in values) if values else None


def _schedule(phases: list[Phase]) -> None:
    """Earliest start from the dependency graph (phases are in dependency order)."""
    end: dict[str, int] = {}
    for index, phase in enumerate(phases):
        start = max((end[dep] for dep in phase.depends_on), default=0)
        phases[index] = phase.model_copy(update={"start_week": start})
        end[phase.id] = start + phase.duration_weeks
