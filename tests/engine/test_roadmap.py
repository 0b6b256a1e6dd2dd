"""The roadmap engine: phases put there by engine findings, effects from engine re-runs."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path

import pytest

import models_engine
from models_engine.engines.roadmap import (
    DEPENDS_ON,
    PHASE_ORDER,
    apply_spec_changes,
    evaluate_roadmap,
)
from models_engine.engines.roadmap import phases as roadmap_phases
from models_engine.engines.roadmap.phases import PhaseDraft
from models_engine.pipeline import evaluate, run_engines
from models_engine.validate import validate_design

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.json"))


def _doc(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text())


@cache
def _roadmap(name: str):
    return evaluate_roadmap(_doc(name))


@cache
def _results(name: str) -> dict:
    design = validate_design(_doc(name))
    return run_engines(design.spec, design.catalog, design.gpu)


def _resolve(data, path: str):
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def _finding_ids(results: dict, engine: str) -> set[str]:
    result = results[engine]
    ids = {f["id"] for f in getattr(result, "findings", [])}
    for site in getattr(result, "sites", []) or []:
        ids |= {f["id"] for f in getattr(site, "findings", [])}
    if engine == "regions":
        ids |= {f"residency:{f['dataset']}@{f['region']}" for f in result.residency_findings}
    return ids


def _is_real(trigger, results: dict) -> bool:
    """The trigger names something present in the design's engine results."""
    if trigger.source != "design":
        return False
    if trigger.kind == "finding":
        return trigger.finding_id in _finding_ids(results, trigger.engine)
    if trigger.kind == "check":
        checks = {c["id"]: c for c in results["security"].checks}
        return checks[trigger.finding_id]["status"] == "FAIL"
    if trigger.kind == "metric":
        value = _resolve(results[trigger.engine].to_json(), trigger.finding_id)
        return value == trigger.value
    return False


@pytest.mark.parametrize("name", NAMES)
def test_phases_in_order_and_the_schedule_respects_dependencies(name):
    roadmap = _roadmap(name)
    assert [p.id for p in roadmap.phases] == PHASE_ORDER
    end = {p.id: p.start_week + p.duration_weeks for p in roadmap.phases}
    for phase in roadmap.phases:
        assert phase.depends_on == DEPENDS_ON[phase.id]
        for dep in phase.depends_on:
            assert phase.start_week >= end[dep], (phase.id, dep)
    assert roadmap.total_weeks == max(end.values())
    assert roadmap.phases[0].id == "assessment" and roadmap.phases[0].start_week == 0


@pytest.mark.parametrize("name", NAMES)
def test_done_phases_have_no_actions_planned_phases_name_real_findings(name):
    roadmap, results = _roadmap(name), _results(name)
    for phase in roadmap.phases:
        if phase.status == "done":
            assert phase.actions == [] and phase.triggers == [] and phase.duration_weeks == 0
            assert phase.summary.startswith("Done:")
            continue
        assert phase.triggers, phase.id
        assert any(_is_real(t, results) for t in phase.triggers), phase.id
        # Every trigger of the design is real, none invented.
        for trigger in phase.triggers:
            assert _is_real(trigger, results), (phase.id, trigger)


def _changes_before(roadmap, phase_id: str) -> tuple[dict, dict]:
    before: dict = {}
    for phase in roadmap.phases:
        changes = {k: v for a in phase.actions for k, v in a.spec_changes.items()}
        if phase.id == phase_id:
            return before, {**before, **changes}
        before.update(changes)
    raise AssertionError(phase_id)


def _headline_with_mfu(doc: dict) -> dict:
    """`evaluate`'s headline plus MFU against the GPU's BF16 peak (the roadmap's convention)."""
    results = evaluate(doc)
    bf16_peak = validate_design(doc).gpu.bf16_dense_tflops
    return {
        **results["headline"],
        "mfu_bf16_peak": results["performance"]["tflops_per_gpu"] / bf16_peak,
    }


@pytest.mark.parametrize("name", NAMES)
def test_headline_change_is_what_evaluate_returns(name):
    """Recompute the last planned phase with spec changes independently with `evaluate`."""
    roadmap = _roadmap(name)
    changed = [p for p in roadmap.phases if any(a.spec_changes for a in p.actions)]
    assert changed, "every example has at least one phase that changes the design"
    phase = changed[-1]
    before_changes, after_changes = _changes_before(roadmap, phase.id)
    before = _headline_with_mfu(apply_spec_changes(_doc(name), before_changes))
    after = _headline_with_mfu(apply_spec_changes(_doc(name), after_changes))
    assert phase.headline_change
    for change in phase.headline_change:
        assert change.before == pytest.approx(before.get(change.metric), rel=1e-9)
        assert change.after == pytest.approx(after.get(change.metric), rel=1e-9)
    # The plan's before is the design's own headline, its after every phase applied.
    assert roadmap.headline_before["step_time_s"] == evaluate(_doc(name))["headline"]["step_time_s"]
    _, every = _changes_before(roadmap, PHASE_ORDER[-1])
    final = evaluate(apply_spec_changes(_doc(name), every))["headline"]
    assert roadmap.headline_after["capex_usd"] == pytest.approx(final["capex_usd"], rel=1e-9)


def _one_nic_starter() -> dict:
    """The H100 starter with one 400G NIC per 8 GPUs (50 Gb/s per GPU): a network-bound step."""
    return apply_spec_changes(_doc("h100-256-onprem-starter"), {"fabric.nics_per_node": 1})


def test_fabric_upgrade_that_shortens_the_step_is_planned_and_priced_by_the_cost_engine():
    doc = _one_nic_starter()
    roadmap = evaluate_roadmap(doc)
    fabric = roadmap.phase("fabric-upgrade")
    assert fabric.status == "planned" and fabric.not_proposed == []
    assert any(
        t.finding_id.endswith("scale_out_line_rate_gbit_per_s_per_gpu") for t in fabric.triggers
    )
    action = next(a for a in fabric.actions if a.id == "fabric-nic-bandwidth")
    assert action.spec_changes == {"fabric.nics_per_node": 2}
    base = evaluate(doc)
    upgraded = evaluate(apply_spec_changes(doc, action.spec_changes))
    # Kept because the engines' re-run shortens the step by at least MIN_STEP_GAIN.
    step = upgraded["headline"]["step_time_s"] / base["headline"]["step_time_s"] - 1
    assert step <= -roadmap_phases.MIN_STEP_GAIN
    assert action.cost_basis == "engine"
    assert action.capex_usd == pytest.approx(
        upgraded["cost"]["capex"]["total_usd"] - base["cost"]["capex"]["total_usd"]
    )
    assert fabric.capex_usd == pytest.approx(action.capex_usd)
    assert fabric.duration_weeks == 12  # hardware changes: the table's hardware row
    _assert_unpriced_lines_are_the_cost_engines(action, base, upgraded)


def _assert_unpriced_lines_are_the_cost_engines(action, before: dict, after: dict) -> None:
    """Each unpriced line an action names is an uncovered unpriced item of the runs around it."""
    items = {
        row["item"]
        for run in (before, after)
        for row in run["cost"]["unpriced_items"]
        if not row["covered_by_allowance"]
    }
    for line in action.unpriced:
        assert line.rsplit(" (", 1)[0] in items, line


def test_fabric_upgrade_on_a_pcie_bound_step_is_not_proposed_and_says_why():
    """The L40S pod (2 x 200G per 8 GPUs, 50 Gb/s per GPU, no NVLink) is below the seed's
    100 Gb/s, but its data-parallel collectives run at the PCIe bandwidth inside the node: the
    engines re-run with 400G NICs give the same step, so no fabric upgrade is proposed."""
    name = "l40s-custom-gpu-finetune"
    roadmap = _roadmap(name)
    fabric = roadmap.phase("fabric-upgrade")
    assert fabric.status == "not-proposed"
    assert fabric.actions == [] and fabric.duration_weeks == 0
    assert fabric.capex_usd is None and fabric.opex_usd_per_year is None  # no work: no cost
    assert fabric.triggers  # what made the engine look
    (why,) = fabric.not_proposed
    assert "fabric.nic_speed_gbps = 400" in why and "PCIe" in why
    base = evaluate(_doc(name))["headline"]["step_time_s"]
    faster_nics = evaluate(apply_spec_changes(_doc(name), {"fabric.nic_speed_gbps": 400}))
    assert faster_nics["headline"]["step_time_s"] > base * (1 - roadmap_phases.MIN_STEP_GAIN)
    assert f"of {base:.3g} s" in why and "largest term is compute" in why
    # Nothing waits for it: the training phase starts when the assessment ends.
    training = roadmap.phase("training-optimisation")
    assert training.start_week == roadmap.phase("assessment").duration_weeks


@pytest.mark.parametrize("name", NAMES)
def test_phase_costs_are_priced_sums_or_none_never_a_made_up_zero(name):
    for phase in _roadmap(name).phases:
        priced = [a for a in phase.actions if a.cost_basis == "engine"]
        if not priced:
            assert phase.capex_usd is None and phase.opex_usd_per_year is None, phase.id
            continue
        assert phase.capex_usd == pytest.approx(sum(a.capex_usd or 0.0 for a in priced))
        assert phase.unpriced == list(
            dict.fromkeys(line for a in phase.actions for line in a.unpriced)
        )


def test_an_action_adding_a_storage_network_prices_every_line_it_adds():
    """The L40S control plane adds a separate storage network. Its generic transceivers and
    cables have no catalog price; they are priced by marked per-line allowances (issue 15), so
    the phase's capex includes them and the action names no unpriced line."""
    roadmap = _roadmap("l40s-custom-gpu-finetune")
    phase = roadmap.phase("control-plane")
    action = next(a for a in phase.actions if a.id == "control-plane-storage-network")
    assert action.cost_basis == "engine" and action.capex_usd > 0
    assert action.unpriced == []
    before_changes, _ = _changes_before(roadmap, "control-plane")
    before = apply_spec_changes(_doc("l40s-custom-gpu-finetune"), before_changes)
    previous = {
        k: v
        for a in phase.actions[: phase.actions.index(action)]
        for k, v in a.spec_changes.items()
    }
    before = apply_spec_changes(before, previous)
    after = evaluate(apply_spec_changes(before, action.spec_changes))
    storage = [
        line
        for line in after["cost"]["capex"]["lines"]
        if line["item"].startswith("storage ") and line.get("network") == "storage"
    ]
    assert storage and all(line["total_usd"] is not None for line in storage)
    assert any(line.get("allowance") for line in storage)
    _assert_unpriced_lines_are_the_cost_engines(action, evaluate(before), after)


def test_fp8_reads_as_a_higher_mfu_in_the_roadmap_convention():
    """Switching the H100 starter to FP8 shortens the step; the performance engine's MFU (FP8
    runs against the FP8 peak) falls, the roadmap's MFU (BF16 peak on both sides) rises with
    the step, and the change says which convention it uses."""
    name = "h100-256-onprem-starter"
    roadmap = _roadmap(name)
    phase = roadmap.phase("training-optimisation")
    assert "training-fp8" in {a.id for a in phase.actions}
    changes = {c.metric: c for c in phase.headline_change}
    step, mfu = changes["step_time_s"], changes["mfu_bf16_peak"]
    assert step.after < step.before
    assert mfu.after / mfu.before == pytest.approx(step.before / step.after, rel=0.02)
    assert "BF16 peak" in mfu.convention and "mfu" not in changes
    before_changes, after_changes = _changes_before(roadmap, phase.id)
    engine_mfu_before = evaluate(apply_spec_changes(_doc(name), before_changes))["headline"]["mfu"]
    engine_mfu_after = evaluate(apply_spec_changes(_doc(name), after_changes))["headline"]["mfu"]
    assert engine_mfu_after < engine_mfu_before  # what the roadmap no longer shows unexplained


def test_checkpoint_automation_done_with_incremental_async_optimal_interval():
    doc = _doc("h100-256-onprem-starter")
    doc["storage"]["checkpoint"] = {
        "interval_min": "auto",
        "async_write": True,
        "incremental": True,
        "retention_count": 3,
    }
    phase = evaluate_roadmap(doc).phase("checkpoint-automation")
    assert phase.status == "done" and phase.actions == []


def test_blocking_off_optimum_checkpoints_are_planned():
    phase = _roadmap("l40s-custom-gpu-finetune").phase("checkpoint-automation")
    assert phase.status == "planned"
    changes = {k: v for a in phase.actions for k, v in a.spec_changes.items()}
    assert changes["storage.checkpoint.interval_min"] == "auto"
    assert changes["storage.checkpoint.async_write"] is True
    goodput = next(c for c in phase.headline_change if c.metric == "goodput")
    assert goodput.after > goodput.before


def test_two_region_synchronous_over_thin_wan_gets_a_faster_strategy():
    doc = _doc("two-region-hierarchical")
    doc["regions"]["cross_region_strategy"] = "synchronous"
    doc["regions"]["wan_links"][0]["bandwidth_gbps"] = 10
    roadmap = evaluate_roadmap(doc)
    phase = roadmap.phase("training-optimisation")
    assert phase.status == "planned"
    assert "synchronous-wan-not-viable" in {t.finding_id for t in phase.triggers}
    action = next(a for a in phase.actions if a.id == "training-cross-region-strategy")
    assert action.spec_changes["regions.cross_region_strategy"] != "synchronous"
    # The strategy change alone reduces the step (re-run, not guessed).
    before_changes, _ = _changes_before(roadmap, phase.id)
    before = evaluate(apply_spec_changes(doc, before_changes))["headline"]
    after = evaluate(apply_spec_changes(doc, {**before_changes, **action.spec_changes}))
    assert after["headline"]["step_time_s"] < before["step_time_s"]
    step = next(c for c in phase.headline_change if c.metric == "step_time_s")
    assert step.after < step.before


def test_given_results_are_reused():
    name = "h100-256-onprem-starter"
    fresh = _roadmap(name)
    reused = evaluate_roadmap(_doc(name), results=_results(name))
    assert reused.engine_runs == fresh.engine_runs - 1
    assert [p.status for p in reused.phases] == [p.status for p in fresh.phases]
    assert reused.headline_after == fresh.headline_after


def test_baseline_starts_the_plan_and_its_gaps_are_triggers():
    target = _doc("h100-256-onprem-starter")
    baseline = copy.deepcopy(target)
    baseline["name"] = "As-is: 200G NICs"
    baseline["fabric"]["nic_speed_gbps"] = 200
    baseline["storage"]["checkpoint"]["async_write"] = False
    roadmap = evaluate_roadmap(target, baseline_doc=baseline)
    assert roadmap.baseline_name == "As-is: 200G NICs"
    assert roadmap.headline_before == pytest.approx(
        {
            k: v
            for k, v in evaluate(baseline)["headline"].items()
            if isinstance(v, float | int) and not isinstance(v, bool)
        }
    )
    fabric = roadmap.phase("fabric-upgrade")
    assert fabric.status == "planned"
    gaps = [t for t in fabric.triggers if t.source == "baseline"]
    assert {t.finding_id for t in gaps} >= {"fabric.nic_speed_gbps"}
    adopt = fabric.actions[0]
    assert adopt.spec_changes == {"fabric.nic_speed_gbps": 400}
    ckpt = roadmap.phase("checkpoint-automation")
    assert {"storage.checkpoint.async_write": True}.items() <= {
        k: v for a in ckpt.actions for k, v in a.spec_changes.items()
    }.items()
    step = next(c for c in fabric.headline_change if c.metric == "capex_usd")
    assert step.before == roadmap.headline_before["capex_usd"]


def test_an_action_the_design_cannot_take_is_dropped_with_a_note(monkeypatch):
    original = roadmap_phases.DECIDERS["cost-governance"]

    def with_invalid(design):
        draft = original(design)
        draft.triggers.append(
            roadmap_phases._metric("cost", "summary.ownership", "x", None, "test")
        )
        draft.actions.append(
            roadmap_phases.ActionDraft(
                id="bad",
                title="bad",
                detail="",
                spec_changes={"economics.utilisation": 2.0},
                source="test",
            )
        )
        return draft

    monkeypatch.setitem(roadmap_phases.DECIDERS, "cost-governance", with_invalid)
    roadmap = evaluate_roadmap(_doc("h100-256-onprem-starter"))
    phase = roadmap.phase("cost-governance")
    assert "bad" not in {a.id for a in phase.actions}
    assert any("'bad' dropped" in note for note in roadmap.assumptions)


def test_public_face_exports_the_roadmap():
    for name in ("evaluate_roadmap", "RoadmapResult", "Phase", "Trigger", "MetricChange"):
        assert name in models_engine.__all__
    roadmap = _roadmap("dgx-h100-superpod-4su")
    assert models_engine.RoadmapResult.from_json(roadmap.to_json()) == roadmap


def _two_bandwidth_actions(design):
    """A fabric draft whose first bandwidth action pays only once the second is applied."""
    draft = roadmap_phases.PhaseDraft()
    draft.triggers.append(roadmap_phases._metric("fabric", "x", 1.0, 2.0, "test trigger"))
    for action_id, changes in (
        ("more-nics", {"fabric.nics_per_node": 2}),
        ("non-blocking", {"fabric.oversubscription.leaf": 1.0}),
    ):
        draft.add(
            roadmap_phases.ActionDraft(
                id=action_id,
                title=action_id,
                detail="",
                spec_changes=changes,
                source="test",
                must_shorten_step=True,
            )
        )
    return draft


def _leaf(design) -> float:
    return design.doc["fabric"]["oversubscription"]["leaf"]


def test_a_bandwidth_action_waits_for_the_one_it_needs(monkeypatch):
    """Stand-in for the step: more NICs shorten it only on a non-blocking leaf."""
    from models_engine.engines.roadmap import engine as roadmap_engine

    monkeypatch.setitem(roadmap_phases.DECIDERS, "fabric-upgrade", _two_bandwidth_actions)
    monkeypatch.setattr(roadmap_engine, "_shortens_step", lambda before, after: _leaf(after) == 1)
    doc = apply_spec_changes(
        _doc("h100-256-onprem-starter"),
        {"fabric.nics_per_node": 1, "fabric.oversubscription.leaf": 2.0},
    )
    fabric = evaluate_roadmap(doc).phase("fabric-upgrade")
    assert fabric.status == "planned" and fabric.not_proposed == []
    assert [a.id for a in fabric.actions] == ["non-blocking", "more-nics"]


def test_bandwidth_actions_that_never_pay_leave_the_phase_not_proposed(monkeypatch):
    from models_engine.engines.roadmap import engine as roadmap_engine

    monkeypatch.setitem(roadmap_phases.DECIDERS, "fabric-upgrade", _two_bandwidth_actions)
    monkeypatch.setattr(roadmap_engine, "_shortens_step", lambda before, after: False)
    doc = apply_spec_changes(
        _doc("h100-256-onprem-starter"),
        {"fabric.nics_per_node": 1, "fabric.oversubscription.leaf": 2.0},
    )
    roadmap = evaluate_roadmap(doc)
    fabric = roadmap.phase("fabric-upgrade")
    assert fabric.status == "not-proposed" and fabric.actions == []
    assert [why.split(":")[0] for why in fabric.not_proposed] == ["more-nics", "non-blocking"]
    # Each declined action was run once: nothing changed between its try and the retry.
    monkeypatch.setitem(roadmap_phases.DECIDERS, "fabric-upgrade", lambda d: PhaseDraft())
    without_fabric = evaluate_roadmap(doc).engine_runs
    assert roadmap.engine_runs == without_fabric + 2


def test_unpopulated_nic_ports_are_not_bought_when_the_step_does_not_wait_on_them():
    """The serving fleet leaves 4 of 8 NIC ports empty (a fabric finding) but its decode step
    is tensor-parallel communication inside NVLink: filling the ports (~$0.9M by the cost
    engine) leaves the step as it is, so it is not proposed and the reason is given."""
    name = "inference-fleet"
    fabric = _roadmap(name).phase("fabric-upgrade")
    assert "fabric-nics-per-node" in {t.finding_id for t in fabric.triggers}
    assert fabric.status == "not-proposed" and fabric.capex_usd is None
    (why,) = fabric.not_proposed
    assert "fabric.nics_per_node = 8" in why and "no scale-out communication is exposed" in why
    filled = evaluate(apply_spec_changes(_doc(name), {"fabric.nics_per_node": 8}))["headline"]
    assert filled["step_time_s"] == pytest.approx(evaluate(_doc(name))["headline"]["step_time_s"])
