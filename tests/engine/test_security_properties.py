"""Security score properties (hypothesis): fixing a failing check never lowers a score."""

from __future__ import annotations

import copy
import json
from datetime import date
from pathlib import Path
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from models_engine.engines.security import evaluate_security, load_rules
from models_engine.engines.security.scoring import score

RULES = load_rules()
RECORDS = [check.record for check in RULES.checks]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BASE = json.loads((EXAMPLES / "h100-256-onprem-starter.json").read_text())
GRADE_ORDER = [band.grade for band in RULES.manifest.grades]

# Controls and their order from weakest to strongest. multi_tenant_fabric is context, not a
# control (sharing the fabric is a decision that raises requirements), so it is drawn freely.
ORDERED_CONTROLS: dict[str, list[Any]] = {
    "network_segmentation": ["flat", "management-separated", "fully-segmented"],
    "mfa": ["none", "privileged-only", "all-users"],
    "key_management": ["none", "software", "kms", "hsm"],
    **{
        name: [False, True]
        for name in (
            "identity_federation",
            "rbac",
            "encryption_at_rest",
            "encryption_in_transit",
            "rdma_encryption",
            "image_scanning",
            "sbom",
            "signed_artifacts",
            "audit_logging",
            "siem",
            "confidential_computing",
            "physical_access_control",
            "data_classification",
            "model_weight_access_logging",
            "dataset_provenance_tracking",
        )
    },
}


def _results(statuses: list[str]) -> list[dict[str, Any]]:
    return [
        {"id": r.id, "category": r.category, "severity": r.severity, "mode": r.mode, "status": s}
        for r, s in zip(RECORDS, statuses, strict=True)
    ]


def _status_for(record: Any) -> st.SearchStrategy[str]:
    if record.mode == "automated":
        return st.sampled_from(["PASS", "FAIL", "ACCEPTED_RISK", "NOT_APPLICABLE"])
    return st.sampled_from(["MANUAL", "ACCEPTED_RISK", "NOT_APPLICABLE"])


def _not_worse(after: float | None, before: float | None) -> bool:
    return before is None or (after is not None and after >= before)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_flipping_a_failing_check_to_passing_never_lowers_any_score(data: st.DataObject) -> None:
    statuses = [data.draw(_status_for(record)) for record in RECORDS]
    failing = [i for i, s in enumerate(statuses) if s == "FAIL"]
    assume(failing)
    index = data.draw(st.sampled_from(failing))
    fixed = list(statuses)
    fixed[index] = "PASS"
    before = score(_results(statuses), RULES.manifest)
    after = score(_results(fixed), RULES.manifest)
    assert _not_worse(after["overall_pct"], before["overall_pct"])
    for category, pct in before["per_category_pct"].items():
        assert _not_worse(after["per_category_pct"][category], pct), category
    assert GRADE_ORDER.index(after["grade"]) <= GRADE_ORDER.index(before["grade"])


security_sections = st.fixed_dictionaries(
    {
        **{name: st.sampled_from(levels) for name, levels in ORDERED_CONTROLS.items()},
        "multi_tenant_fabric": st.booleans(),
    }
)


@settings(max_examples=60, deadline=None)
@given(
    security=security_sections,
    control=st.sampled_from(sorted(ORDERED_CONTROLS)),
    ownership=st.sampled_from(["on-prem", "colocation", "cloud-reserved", "cloud-on-demand"]),
    frontend=st.sampled_from(["separate", "converged"]),
)
def test_strengthening_a_control_in_the_spec_never_lowers_the_score(
    security: dict[str, Any], control: str, ownership: str, frontend: str
) -> None:
    levels = ORDERED_CONTROLS[control]
    position = levels.index(security[control])
    assume(position < len(levels) - 1)
    doc = copy.deepcopy(BASE)
    doc["economics"]["ownership"] = ownership
    doc["fabric"]["frontend_network"]["mode"] = frontend
    doc["security"] = security
    stronger = copy.deepcopy(doc)
    stronger["security"] = {**security, control: levels[position + 1]}
    as_of = date(2026, 1, 1)
    before = evaluate_security(doc, as_of=as_of)["score"]
    after = evaluate_security(stronger, as_of=as_of)["score"]
    assert _not_worse(after["overall_pct"], before["overall_pct"])
    for category, pct in before["per_category_pct"].items():
        assert _not_worse(after["per_category_pct"][category], pct), category
    assert GRADE_ORDER.index(after["grade"]) <= GRADE_ORDER.index(before["grade"])
