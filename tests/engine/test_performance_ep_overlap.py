"""Megatron-Core's combined 1F1B (`workload.software_stack.ep_comm_overlap`, MCore 0.14's
--overlap-moe-expert-parallel-comm): the forward of one micro-batch runs beside the backward of
another, each all-to-all under the compute it is paired with; the warm-up forwards and
cool-down backwards run alone. Checked against the Megatron-Bridge 26.02 rows whose recipes
turn it on (moe_a2a_overlap=True)."""

import copy

import numpy as np
import pytest

from models_engine.engines.performance.layer_cost import OVERLAP_SLOWDOWN
from models_engine.engines.performance.pipeline_schedule import (
    COMBINED_1F1B_CONCURRENT_SHARE,
    ONE_F_ONE_B,
    ZB_H1,
    combined_1f1b_allowed,
    combined_1f1b_unpaired_share,
)
from models_engine.engines.performance.stacks import SOFTWARE_STACKS
from models_engine.spec import SpecValidationError, parse_design
from models_engine.spec.software_stack import COMBINED_1F1B_STACKS
from models_engine.validation.registry import load_registry
from models_engine.validation.runner import run_case

from .test_performance_moe import deepseek_v3, run

# DeepSeek-V3 on 512 H100, TP 2, PP 8, EP 64, 4096 sequences: 128 micro-batches per rank.
H100_DEEPSEEK = ("h100-sxm-80gb", 512, 2, 8, 64, 32, 4096)


def with_overlap(doc: dict, *, virtual_stages: int = 2, overlap: bool = True) -> dict:
    doc = copy.deepcopy(doc)
    doc["workload"]["parallelism"].update(
        virtual_stages=virtual_stages, first_stage_layers=7, last_stage_layers=6
    )
    doc["workload"]["software_stack"] = {"name": "megatron-core-te-2024"}
    if overlap:
        doc["workload"]["software_stack"]["ep_comm_overlap"] = True
    return doc


def test_the_stack_list_in_the_spec_mirrors_the_engine():
    combined = {name for name, stack in SOFTWARE_STACKS.items() if stack.get("combined_1f1b")}
    assert combined == set(COMBINED_1F1B_STACKS)


def test_the_overlap_hides_the_measured_share_of_the_all_to_all_and_says_so():
    """Of the all-to-all paired with another micro-batch's compute, only the share Megatron-
    Bridge's Nsight profile measured as concurrent (36.55 %) is hidden, and that share still
    costs the SMs under it; the unpaired warm-up and cool-down stay whole."""
    base = deepseek_v3(*H100_DEEPSEEK)
    plain, overlapped = run(with_overlap(base, overlap=False)), run(with_overlap(base))
    exposed = overlapped["breakdown_s"]["ep_comm_exposed"]
    alone_all = plain["breakdown_s"]["ep_comm_exposed"]
    share = COMBINED_1F1B_CONCURRENT_SHARE
    assert share == pytest.approx(3959.0 / 10832.0, abs=0.001)  # profile: 3,959 ms concurrent
    # DeepSeek-V3 on 512 H100 at TP 2 PP 8 VP 2: 128 micro-batches per rank, 23 / 256 unpaired.
    unpaired = 23.0 / 256.0
    paired = 1.0 - share * (1.0 - OVERLAP_SLOWDOWN)  # where every window outlasts its exchange
    lowest = (unpaired + (1.0 - unpaired) * paired) * alone_all
    assert lowest <= exposed < alone_all
    assert exposed == pytest.approx(lowest, rel=0.15)  # short windows hide less
    assert overlapped["step_time_s"] < plain["step_time_s"]
    assert overlapped["software_stack"]["ep_comm_overlap"] is True
    assert plain["software_stack"]["ep_comm_overlap"] is False
    assert overlapped["software_stack"]["ep_comm_concurrent_share"] == share
    assert plain["software_stack"]["ep_comm_concurrent_share"] is None
    # Compute is untouched: only the communication moves.
    assert overlapped["breakdown_s"]["compute"] == pytest.approx(plain["breakdown_s"]["compute"])


def test_the_measured_a_b_pair_is_registered_fit_and_check_apart():
    """The A/B the share comes from: the 'on' run is its fit case, the 'off' run (the same
    layout with the overlap off) only checks the rest of the model."""
    rows = {c.id: c for c in load_registry() if c.family == "megatron-bridge-ep-overlap-h100"}
    on = rows["mbridge-ep-overlap-h100-qwen3-30b-a3b-on"]
    off = rows["mbridge-ep-overlap-h100-qwen3-30b-a3b-off"]
    assert (on.role, off.role) == ("fit", "check")
    assert dict(on.stack.options)["ep_comm_overlap"] is True
    assert "ep_comm_overlap" not in dict(off.stack.options)
    assert on.layout == off.layout
    fitted, checked = run_case(on), run_case(off)
    assert abs(fitted.error) < 0.10
    assert fitted.model_step_time_s < checked.model_step_time_s


def test_fewer_micro_batches_leave_more_of_it_alone():
    """Warm-up forwards and cool-down backwards have no partner: rank 0 of an interleaved
    pipeline warms up with 2 (p - 1) + (v - 1) p + 1 chunks of its m v."""
    p, v = np.array([8.0]), np.array([2.0])
    few, many = (combined_1f1b_unpaired_share(p, v, np.array([m])) for m in (16.0, 128.0))
    assert float(few[0]) == pytest.approx(23 / 32)
    assert float(many[0]) == pytest.approx(23 / 256)
    flat = combined_1f1b_unpaired_share(np.array([1.0]), np.array([1.0]), np.array([64.0]))
    assert float(flat[0]) == pytest.approx(1 / 64)  # first forward, last backward
    small = run(with_overlap(deepseek_v3(*H100_DEEPSEEK[:-1], 512)))
    large = run(with_overlap(deepseek_v3(*H100_DEEPSEEK)))
    share = {
        name: r["breakdown_s"]["ep_comm_exposed"] / r["breakdown_s"]["compute"]
        for name, r in (("small", small), ("large", large))
    }
    assert share["small"] > share["large"]


def test_only_flat_or_interleaved_one_f_one_b_has_it():
    schedule = np.array([ONE_F_ONE_B, ONE_F_ONE_B, ONE_F_ONE_B, ZB_H1])
    p, v = np.array([1, 8, 8, 8]), np.array([1, 1, 2, 1])
    assert combined_1f1b_allowed(schedule, p, v).tolist() == [True, False, True, False]


@pytest.mark.parametrize(
    ("change", "phrase"),
    [
        ({"virtual_stages": 1}, "virtual_stages > 1"),
        ({"stack": "torchtitan"}, "combined 1F1B"),
        ({"dense": True}, "workload.moe"),
    ],
)
def test_where_it_cannot_run_the_error_names_the_field(change, phrase):
    doc = with_overlap(deepseek_v3(*H100_DEEPSEEK), virtual_stages=change.get("virtual_stages", 2))
    if "stack" in change:
        doc["workload"]["software_stack"]["name"] = change["stack"]
    if change.get("dense"):
        doc["workload"].pop("moe")
        doc["workload"]["parallelism"].update(ep=1, expert_tp=None)
    with pytest.raises(SpecValidationError) as error:
        parse_design(doc)
    assert "software_stack.ep_comm_overlap" in str(error.value)
    assert phrase in str(error.value)


OVERLAP_ROWS = [
    c for c in load_registry() if dict(c.stack.options or ()).get("ep_comm_overlap") is True
]


def test_the_rows_whose_recipes_turn_it_on_are_scored_with_it():
    """Megatron-Bridge 26.02: GB200 DeepSeek-V3 MXFP8, GB200 GPT-OSS 120B, H100 Qwen3-235B FP8
    (recipe presets with moe_a2a_overlap=True and the row's layout), the 25.11 H100 Qwen3-235B
    row of the same layout, and the measured A/B's 'on' run. While the paired all-to-all was
    hidden in full every one of these came out fast (-16 % to -38 %); with the measured
    concurrent share the H100 Qwen3-235B runs come within 3 % and GB200 DeepSeek-V3 -7 %
    (out of sample: only the A/B run was fitted). GPT-OSS stays fast for its own reasons
    (closing note)."""
    ids = {c.id for c in OVERLAP_ROWS}
    assert ids == {
        "bridge2602-gb200-deepseek-v3-fp8-mx-256",
        "bridge2602-gb200-gpt-oss-120b-bf16-64",
        "bridge2602-h100-qwen3-235b-a22b-fp8-cs-256",
        "bridge2511-h100-qwen3-235b-a22b-fp8-cs-256",
        "mbridge-ep-overlap-h100-qwen3-30b-a3b-on",
    }
    for case in OVERLAP_ROWS:
        if case.id.startswith(("bridge2602-h100-qwen3", "bridge2511-h100-qwen3")):
            assert case.role == "check"
            assert abs(run_case(case).error) < 0.05, case.id
    deepseek = next(c for c in OVERLAP_ROWS if "deepseek" in c.id)
    assert abs(run_case(deepseek).error) < 0.10


def test_the_spec_states_the_share_the_engine_uses():
    """The field's description (the editor and the API schema show it) quotes the engine's
    measured share, not a copy that could drift from it."""
    from models_engine.spec.software_stack import SoftwareStackChoice

    description = SoftwareStackChoice.model_fields["ep_comm_overlap"].description
    assert f"{COMBINED_1F1B_CONCURRENT_SHARE * 100:.2f} %" in description
