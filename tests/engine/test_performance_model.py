"""Behaviour of the performance engine: output contract, closed forms it must reproduce,
orderings that physics demands, and agreement between the vectorised search and a single
evaluation."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models_engine.catalog import load_catalog
from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.performance import evaluate_memory, evaluate_performance
from models_engine.engines.performance.candidates import from_layouts
from models_engine.engines.performance.flops import model_flops_per_token
from models_engine.engines.performance.layout import Layout
from models_engine.engines.performance.memory_fit import memory_breakdown_gib
from models_engine.engines.performance.memory_vector import training_memory_gib
from models_engine.engines.performance.shapes import model_shape
from models_engine.engines.storage import evaluate_storage_supply
from models_engine.hardware import resolve_gpu
from models_engine.spec import Workload, parse_design

CATALOG = load_catalog()
EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.json"))
MEMORY_KEYS = {"per_gpu_gib", "total_gib", "hbm_capacity_gib", "headroom_gib", "fits", "stage"}


def run(doc) -> dict:
    """The performance engine on the network the fabric engine builds (stored JSON)."""
    spec = parse_design(doc)
    fabric = evaluate_fabric(spec, CATALOG)
    gpu = resolve_gpu(spec.compute, CATALOG)
    return evaluate_performance(
        spec,
        gpu,
        CATALOG,
        fabric=fabric,
        storage_supply=evaluate_storage_supply(spec, CATALOG, fabric=fabric),
    ).to_json()


def llama_8b(parallelism="auto", gpus=64, precision="bf16", batch=512, **workload):
    return {
        "workload": {
            "layers": 32,
            "hidden_size": 4096,
            "attention_heads": 32,
            "kv_heads": 8,
            "ffn_hidden_size": 14336,
            "sequence_length": 8192,
            "vocab_size": 128256,
            "global_batch_sequences": batch,
            "precision": precision,
            "parallelism": parallelism,
            **workload,
        },
        "compute": {"gpu_sku": "h100-sxm-80gb", "gpu_count": gpus},
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_evaluates_to_json_with_the_memory_contract(path):
    result = run(json.loads(path.read_text()))
    json.dumps(result)  # plain JSON-ready data
    assert set(result["memory"]) >= MEMORY_KEYS
    assert {"layout", "model", "step_time_s", "breakdown_s", "tokens_per_s", "mfu", "hfu"} <= set(
        result
    )
    assert result["model"]["parameters_total_b"] > 0
    assert 0 < result["mfu"] <= result["hfu"] < 1
    assert result["step_time_s"] > 0
    if result["kind"] == "training":
        assert sum(result["breakdown_s"].values()) == pytest.approx(result["step_time_s"])
        assert set(result["collectives"]) == {"nvlink_domain", "scale_out"}
        assert "wan_comm_exposed" not in result["breakdown_s"]  # single-site step
        assert result["time_to_train_days"] > 0
    else:
        assert result["inference"]["kv_cache_gib_per_gpu"] > 0


def test_evaluate_memory_output_is_unchanged_in_shape():
    spec = parse_design(llama_8b({"tp": 2, "dp": 32}))
    result = evaluate_memory(spec, resolve_gpu(spec.compute, CATALOG))
    assert set(result) == {"layout", "memory", "model"}
    assert set(result["memory"]) == MEMORY_KEYS


def test_model_flops_follow_the_stated_convention():
    shape = model_shape(Workload(**llama_8b()["workload"]))
    h, layers, ffn, vocab, seq = 4096, 32, 14336, 128256, 8192
    weights = layers * (h * (h + 2 * 1024) + h * h + 3 * h * ffn) + vocab * h
    attention = 6 * seq * h * layers  # causal: half of the recipes' 12 s h per layer
    assert model_flops_per_token(shape) == pytest.approx(6 * weights + attention)


# Korthikanti 2022 / Megatron README: MFU 72 B s l h^2 (1 + s/6h + V/12lh) FLOPs per step.
KORTHIKANTI_MFU = {
    "22B": (6144, 48, 64, 8, 4, 41.5),
    "175B": (12288, 96, 96, 64, 64, 51.4),
    "530B": (20480, 105, 128, 280, 280, 56.0),
    "1T": (25600, 128, 160, 512, 512, 56.3),
}


def test_korthikanti_mfu_in_its_own_convention_within_5_percent():
    from tests.engine.test_performance_validation import korthikanti_design

    print("\nKorthikanti seq-par + selective MFU: published vs model")
    for name, (h, layers, _heads, gpus, batch, published) in KORTHIKANTI_MFU.items():
        doc = korthikanti_design(name, full_recompute=False)
        step = run(doc)["step_time_s"]
        s = 2048
        flops = 72 * batch * s * layers * h**2 * (1 + s / (6 * h) + 51200 / (12 * layers * h))
        mfu = flops / step / gpus / 312e12 * 100
        print(f"{name:5s} {published:5.1f}% {mfu:5.1f}%")
        assert abs(mfu / published - 1) < 0.05


def test_pipeline_bubble_is_p_minus_1_over_v_m():
    p, v, dp, batch = 4, 2, 16, 128  # m = 8 micro-batches
    result = run(
        llama_8b(
            {
                "tp": 1,
                "pp": p,
                "dp": dp,
                "virtual_stages": v,
                "sequence_parallel": False,
                "recompute": "selective",
            },
            batch=batch,
            vocab_size=256,
            tied_embeddings=True,
        )
    )
    m = result["microbatches_per_step"]
    b = result["breakdown_s"]
    # Kernel time, the stack's named losses on it and exposed TP / CP: the stages' work.
    parts = ("compute", "recompute", "kernel_launch_gaps", "stack_overhead")
    pipeline_work = sum(b[k] for k in parts) + b["tp_comm_exposed"] + b["cp_comm_exposed"]
    assert m == 8
    assert b["pipeline_bubble"] / pipeline_work == pytest.approx((p - 1) / (v * m), rel=0.05)


def test_more_recompute_costs_time_and_saves_memory():
    results = {
        mode: run(llama_8b({"tp": 2, "dp": 32, "sequence_parallel": True, "recompute": mode}))
        for mode in ("none", "selective", "full")
    }
    steps = [results[m]["step_time_s"] for m in ("none", "selective", "full")]
    memory = [
        results[m]["memory"]["per_gpu_gib"]["activations"] for m in ("none", "selective", "full")
    ]
    assert steps[0] <= steps[1] < steps[2]
    assert memory[0] >= memory[1] > memory[2]
    assert results["full"]["hfu"] > results["full"]["mfu"]


def test_fp8_is_faster_than_bf16_on_h100_but_not_twice():
    layout = {"tp": 1, "cp": 2, "dp": 32, "recompute": "none"}
    bf16 = run(llama_8b(layout))["step_time_s"]
    fp8 = run(llama_8b(layout, precision="fp8"))["step_time_s"]
    assert 1.1 < bf16 / fp8 < 2.0


def test_time_to_train_is_failure_free_at_the_step():
    doc = llama_8b({"tp": 1, "cp": 2, "dp": 32, "recompute": "none"})
    result = run(doc)
    tokens_per_step = 512 * 8192
    assert result["tokens_per_s"] == tokens_per_step / result["step_time_s"]
    tokens_to_train = parse_design(doc).workload.tokens_to_train
    assert result["time_to_train_days"] == tokens_to_train / result["tokens_per_s"] / 86_400


def test_data_parallel_communication_is_exposed_more_on_a_slower_fabric():
    fast = llama_8b({"tp": 1, "dp": 64, "zero_stage": 3, "recompute": "full"}, batch=64)
    slow = json.loads(json.dumps(fast))
    slow["fabric"] = {"technology": "roce-400g", "nic_speed_gbps": 100, "nics_per_node": 1}
    a, b = run(fast), run(slow)
    assert b["breakdown_s"]["dp_comm_exposed"] > 10 * a["breakdown_s"]["dp_comm_exposed"]


def test_auto_returns_the_fastest_fitting_layout_and_explains_the_rest():
    result = run(llama_8b(gpus=256, batch=1024))
    auto = result["auto"]
    top = auto["top"]
    assert auto["candidates_evaluated"] > 1000
    assert top[0]["lost_because"] is None and top[0]["fits_memory"]
    steps = [row["step_time_s"] for row in top[1:]]
    assert steps == sorted(steps)
    fitting = [row["step_time_s"] for row in top if row["fits_memory"]]
    assert min(fitting) == top[0]["step_time_s"]
    for row in top[1:]:
        assert row["lost_because"].startswith(("slower by", "doesn't fit memory"))
        assert row["fits_memory"] or row["lost_because"].startswith("doesn't fit")
    assert result["memory"]["fits"]


def test_auto_winner_evaluated_explicitly_gives_the_same_step_time():
    """The vectorised search and the single evaluation are the same model."""
    result = run(llama_8b(gpus=256, batch=1024))
    layout = dict(result["layout"])
    layout.pop("chosen_by")
    explicit = run(llama_8b(layout, gpus=256, batch=1024))
    assert explicit["step_time_s"] == pytest.approx(result["step_time_s"], rel=1e-9)
    assert explicit["memory"]["total_gib"] == pytest.approx(
        result["auto"]["best"]["memory_per_gpu_gib"], rel=1e-9
    )


def test_auto_finds_a_405b_layout_on_16k_gpus():
    doc = json.loads((EXAMPLES[0].parent / "llama3-16k-h100-roce.json").read_text())
    doc["workload"]["parallelism"] = "auto"
    result = run(doc)
    assert result["auto"]["found_layout_that_fits"]
    assert (
        result["layout"]["tp"]
        * result["layout"]["pp"]
        * result["layout"]["cp"]
        * result["layout"]["dp"]
        == 16384
    )
    assert 0.2 < result["mfu"] < 0.7


@settings(max_examples=60, deadline=None)
@given(
    tp=st.sampled_from([1, 2, 4, 8]),
    pp=st.sampled_from([1, 2, 4]),
    cp=st.sampled_from([1, 2]),
    mbs=st.sampled_from([1, 2]),
    zero=st.sampled_from([0, 1, 2, 3]),
    recompute=st.sampled_from(["none", "selective", "full"]),
    sp=st.booleans(),
    kernel=st.sampled_from(["flash", "unfused"]),
)
def test_vectorised_memory_equals_the_scalar_model(tp, pp, cp, mbs, zero, recompute, sp, kernel):
    workload = Workload(**llama_8b()["workload"])
    layout = Layout(
        tp=tp,
        pp=pp,
        dp=4,
        cp=cp,
        micro_batch_size=mbs,
        zero_stage=zero,
        sequence_parallel=sp and tp > 1,
        recompute=recompute,
    )
    scalar = memory_breakdown_gib(workload, layout, attention_kernel=kernel)
    vector = training_memory_gib(model_shape(workload), from_layouts([layout], 32), kernel)
    for key, value in scalar.items():
        assert float(vector[key][0]) == pytest.approx(value, rel=1e-9)


def inference_doc(batch, tp=8, parallelism=None):
    return {
        "workload": {
            "kind": "inference",
            "layers": 80,
            "hidden_size": 8192,
            "attention_heads": 64,
            "kv_heads": 8,
            "ffn_hidden_size": 28672,
            "sequence_length": 8192,
            "vocab_size": 128256,
            "precision": "fp8",
            "parallelism": parallelism
            or {"tp": tp, "dp": 64 // tp, "zero_stage": 0, "recompute": "none"},
            "inference": {
                "target_tokens_per_s": 50000,
                "batch_size": batch,
                "prompt_tokens": 2048,
                "output_tokens": 512,
                "latency_slo_ms": {"time_per_output_token": 30, "time_to_first_token": 1000},
            },
        },
        "compute": {"gpu_sku": "h200-sxm-141gb", "gpu_count": 64},
    }


def test_decode_is_memory_bound_so_bigger_batches_raise_throughput_and_latency():
    small, large = run(inference_doc(8)), run(inference_doc(128))
    assert large["tokens_per_s_per_gpu"] > 3 * small["tokens_per_s_per_gpu"]
    assert (
        large["inference"]["time_per_output_token_s"]
        > small["inference"]["time_per_output_token_s"]
    )
    assert large["inference"]["kv_cache_gib_per_gpu"] == pytest.approx(
        16 * small["inference"]["kv_cache_gib_per_gpu"]
    )


def test_inference_slo_verdict_matches_the_latencies():
    result = run(inference_doc(64))["inference"]
    slo = result["slo"]
    assert slo["time_per_output_token_met"] == (
        result["time_per_output_token_s"] * 1e3 <= slo["time_per_output_token_ms"]
    )
    assert slo["met"] == (slo["time_per_output_token_met"] and slo["time_to_first_token_met"])
    assert result["gpus_needed_for_target"] % 8 == 0


def test_inference_auto_prefers_layouts_that_meet_the_slo():
    result = run(inference_doc(64, parallelism="auto"))
    assert result["inference"]["slo"]["met"]
    assert result["auto"]["top"][0]["lost_because"] is None


def test_a_cross_region_design_has_no_wan_time_in_its_step():
    """The performance step is the single-site step; the regions engine adds the WAN."""
    doc = json.loads((EXAMPLES[0].parent / "two-region-hierarchical.json").read_text())
    result = run(doc)
    assert "wan" not in result["collectives"]
    assert "wan_comm_exposed" not in result["breakdown_s"]
    assert sum(result["breakdown_s"].values()) == pytest.approx(result["step_time_s"])


def test_candidate_arrays_reject_nothing_valid_from_the_spec():
    layouts = [Layout(tp=2, pp=2, dp=16, first_stage_layers=15, last_stage_layers=17)]
    cand = from_layouts(layouts, 32)
    assert float(cand.middle_layers[0]) == 0.0
    assert np.array_equal(cand.first_layers, [15.0]) and np.array_equal(cand.last_layers, [17.0])


@pytest.mark.xfail(
    strict=False,
    reason="KNOWN GAP (issue 13): with the paper's own schedule now expressible (7 + 14 x 8 + 7 "
    "layers, interleaved; test_pipeline_schedules checks its bubble against Table 4's 8K/16K "
    "ratio) the bubble no longer hides it: the published layout's compute alone gives ~48 % "
    "MFU against 41 %, a kernel-efficiency calibration question, not a schedule one",
)
def test_llama3_405b_on_16k_h100_lands_in_the_published_mfu_range():
    """Llama 3 paper (Dubey et al. 2024, Table 4): 38-43 % BF16 MFU on 8K-16K H100. The auto
    search over the example's cluster should land in that band (stated tolerance: +-5 points,
    since the paper's own schedule is not expressible here)."""
    import json
    from pathlib import Path

    import models_engine

    doc = json.loads(
        (Path(__file__).resolve().parents[2] / "examples" / "llama3-16k-h100-roce.json").read_text()
    )
    mfu = models_engine.evaluate(doc)["performance"]["mfu"]
    print(f"Llama 3 405B, 16,384 H100: model MFU {mfu:.1%} vs published 38-43 %")
    assert 0.33 <= mfu <= 0.48


def test_io_stall_reads_the_storage_supply_of_the_largest_site():
    """The step's I/O is the storage engine's supply: the site's share of the job's data per
    step read at the site's data-loading bandwidth, stalling what the step does not hide."""
    doc = json.loads((EXAMPLES[0].parent / "dgx-h100-superpod-4su.json").read_text())
    doc["storage"]["tiers"] = doc["storage"]["tiers"][1:]  # shared tiers only
    # rated 7,000 GB/s achieves 2,000 (2/7, storage/data.py): faster than the network
    doc["storage"]["tiers"][0]["read_gbytes_per_s"] = 7000
    doc["fabric"]["storage_network"] = {
        "mode": "separate",
        "nic_speed_gbps": 25,
        "nics_per_node": 1,
    }
    doc["storage"]["bytes_per_sample"] = 1e10  # a heavy sample: data loading stalls the step
    spec = parse_design(doc)
    fabric = evaluate_fabric(spec, CATALOG)
    supply = evaluate_storage_supply(spec, CATALOG, fabric=fabric)
    result = run(doc)
    io = result["io"]
    site = supply.site(fabric.primary.site_id)
    assert io["site_id"] == site.site_id and io["site_share"] == 1.0
    assert io["storage_read_gb_per_s"] == site.data_loading_gbytes_per_s
    assert site.data_loading_gbytes_per_s == pytest.approx(127 * 25 / 8)  # network-capped
    stall = result["breakdown_s"]["io"]
    hidden = result["step_time_s"] - stall
    read_s = io["site_data_bytes_per_step"] / (io["storage_read_gb_per_s"] * 1e9)
    assert stall > 0
    assert stall == pytest.approx(read_s - hidden)
