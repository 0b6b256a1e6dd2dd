"""A RoadmapResult built by hand from the engine's typed contract, for the report tests (used
only while `models_engine.evaluate_roadmap` does not exist)."""

from models_engine import RoadmapResult

PHASE_TITLES = {
    "assessment": "Technical assessment",
    "fabric-upgrade": "Fabric upgrade: RDMA at 400G with telemetry",
    "control-plane": "Unified control plane",
    "training-optimisation": "Training optimised for the topology",
    "checkpoint-automation": "Checkpoint and recovery automation",
    "cost-governance": "Cost model and governance",
}


def _change(metric, label, unit, before, after, better="lower"):
    return {
        "metric": metric,
        "label": label,
        "unit": unit,
        "before": before,
        "after": after,
        "better": better,
    }


def fake_roadmap(spec_doc, *, catalog_entries=None, baseline_doc=None, results=None):
    headline = (results or {}).get("headline") or {}
    days = headline.get("time_to_train_days", 10.0)
    tco = headline.get("tco_usd", 3.0e7)
    phases = []
    layout = [
        ("assessment", "done", [], 0, 2, 0, 0),
        ("fabric-upgrade", "planned", ["assessment"], 2, 8, 1.2e6, 6.0e4),
        ("control-plane", "planned", ["assessment"], 2, 10, 4.0e5, 1.5e5),
        ("training-optimisation", "planned", ["fabric-upgrade"], 10, 4, 0, 0),
        ("checkpoint-automation", "planned", ["control-plane"], 12, 6, 2.5e5, 3.0e4),
        (
            "cost-governance",
            "planned",
            ["training-optimisation", "checkpoint-automation"],
            18,
            3,
            0,
            2.0e4,
        ),
    ]
    for phase_id, status, deps, start, weeks, capex, opex in layout:
        phases.append(
            {
                "id": phase_id,
                "title": PHASE_TITLES[phase_id],
                "status": status,
                "summary": f"{PHASE_TITLES[phase_id]} for this design.",
                "triggers": []
                if status == "done"
                else [
                    {
                        "engine": "fabric",
                        "finding_id": f"{phase_id}-trigger",
                        "severity": "warning",
                        "message": f"finding that calls for {PHASE_TITLES[phase_id].lower()}",
                    }
                ],
                "actions": []
                if status == "done"
                else [
                    {
                        "id": f"{phase_id}-action",
                        "title": f"Do the {phase_id} work",
                        "detail": "What to change and why.",
                        "spec_changes": {"fabric.scale_out.rail_optimized": True},
                        "capex_usd": capex or None,
                        "opex_usd_per_year": opex or None,
                        "savings_usd_per_year": 2.4e5 if phase_id == "cost-governance" else None,
                        "payback_months": 7.0 if phase_id == "cost-governance" else None,
                        "source": "test fixture",
                        "cost_basis": "engine" if capex or opex else "none",
                    }
                ],
                "depends_on": deps,
                "start_week": start,
                "duration_weeks": weeks,
                "capex_usd": capex,
                "opex_usd_per_year": opex,
                "headline_change": []
                if status == "done"
                else [
                    _change("time_to_train_days", "Time to train", "days", days, days * 0.95),
                    _change("tco_usd", "TCO (NPV)", "USD", tco, tco * 1.01),
                ],
            }
        )
    return RoadmapResult.from_json(
        {
            "design_name": "primary",
            "baseline_name": None,
            "phases": phases,
            "total_weeks": 21,
            "headline_before": {"time_to_train_days": days},
            "headline_after": {"time_to_train_days": days * 0.9},
            "assumptions": ["Phases run with one platform team (fixture)."],
            "sources": ["Infrastructure roadmap, domain background (fixture)"],
        }
    )
