"""Mixture-of-experts step time against published runs.

Source [S15]: NVIDIA/dgxc-benchmarking release v25.05.04 (commit 1f6d9f4)
`deepseek_v3/pretraining/README.md` (layouts and "Training step time (seconds per step)"),
cross-checked against the later `deepseek_v3/pretrain/README.md` (same layouts, adds the
recompute modules: H100 `mla_up_proj`, GB200 `core_attn`). NeMo 25.04 / Megatron-Core, BF16,
seq 4096, MBS 1, all-to-all token dispatcher (no 1F1B A2A overlap, no DeepEP in this recipe).

DeepSeek-V3 671B: 61 layers (first 3 dense), hidden 7168, 128 heads, dense FFN 18432, 256
routed experts + 1 shared, top-8, expert FFN 2048, vocab 129280, multi-head latent attention
(query latent 1536, key/value latent 512, query/key heads 128 + 64 RoPE, value heads 128:
187 M attention weights per layer). The multi-token-prediction module is not entered.

Tolerance: 15 % per H100 case. The GB200 cases are a KNOWN GAP, asserted only as a bound
(model faster than published, by less than 75 %): NVIDIA's own analysis of DeepSeek-V3 on GB200
with this software generation (NVIDIA/Megatron-LM docs/discussions/deepseek-v3-gb200-
optimization, section 2) finds the step host-bound: "large gaps between kernels, and the CPU
kernel launch speed cannot keep up with the kernel execution speed on GPU" (72 router kernels
per MoE layer before fusion, fragmented MXFP8 / permute kernels). The engine has no CPU-launch
model, so it cannot reproduce that; the gap is printed, not hidden by a factor.

Tuned on: no constant was fitted to these runs; the MoE constants come from their sources (see
layer_cost.py). The H100 1024-GPU and GB200 512-GPU cases are HELD OUT: they were not looked at
while choosing between mechanism variants.
"""

import pytest

from models_engine.catalog import load_catalog
from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.performance import evaluate_performance
from models_engine.engines.storage import evaluate_storage_supply
from models_engine.hardware import resolve_gpu
from models_engine.spec import parse_design

CATALOG = load_catalog()
TOLERANCE = 0.15

# (case, GPU SKU, GPUs, TP, PP, EP, DP, GBS, published step s, held out)
DEEPSEEK_V3 = [
    ("H100 512 TP2 PP8 EP64", "h100-sxm-80gb", 512, 2, 8, 64, 32, 4096, 48.948, False),
    ("H100 1024 TP2 PP16 EP64", "h100-sxm-80gb", 1024, 2, 16, 64, 32, 8192, 52.04, True),
    ("GB200 128 TP2 PP4 EP32", "gb200-nvl72", 128, 2, 4, 32, 16, 1024, 34.168, False),
    ("GB200 256 TP2 PP4 EP64", "gb200-nvl72", 256, 2, 4, 64, 32, 2048, 34.194, False),
    ("GB200 512 TP2 PP4 EP64", "gb200-nvl72", 512, 2, 4, 64, 64, 4096, 34.274, True),
]
# 61 layers over pp stages (the recipe does not print its split): (first, last) stage layers
# chosen so the middle stages are even and the last stage, which also holds the output
# head, is not the heaviest.
STAGE_SPLIT = {4: (16, 15), 8: (8, 5), 16: (3, 2)}


def deepseek_v3(sku, gpus, tp, pp, ep, dp, batch):
    """The recipe's expert layout is ETP 1 with EP ranks drawn from TP x DP (Megatron-Core
    expert parallel groups: EP x ETP x EDP = TP x CP x DP), so EP 64 > DP 32 is legal there:
    entered as published, ep = EP with expert_tp 1."""
    first, last = STAGE_SPLIT[pp]
    gb200 = sku == "gb200-nvl72"
    compute = {"gpu_sku": sku, "gpu_count": gpus}
    if gb200:
        # Jobs of 128-512 GPUs fill 16 of a rack's 18 compute trays (a 64-GPU NVLink
        # partition); the spec only accepts whole 72-GPU racks, so the domain is custom 64.
        compute["nvlink_domain"] = {"kind": "custom", "gpus": 64}
        compute["gpus_per_node"] = 4
    else:
        compute["gpus_per_node"] = 8
    return {
        "workload": {
            "kind": "training",
            "layers": 61,
            "hidden_size": 7168,
            "attention_heads": 128,
            "head_dim": 128,
            "mla": {
                "q_lora_rank": 1536,
                "kv_lora_rank": 512,
                "qk_rope_head_dim": 64,
                "v_head_dim": 128,
            },
            "ffn_hidden_size": 18432,
            "gated_mlp": True,
            "tied_embeddings": False,
            "sequence_length": 4096,
            "vocab_size": 129280,
            "global_batch_sequences": batch,
            "precision": "bf16",
            "moe": {
                "experts": 256,
                "top_k": 8,
                "expert_ffn_hidden_size": 2048,
                "shared_experts": 1,
                "first_dense_layers": 3,
            },
            "parallelism": {
                "tp": tp,
                "pp": pp,
                "ep": ep,
                "expert_tp": 1,
                "first_stage_layers": first,
                "last_stage_layers": last,
                "dp": dp,
                "micro_batch_size": 1,
                "zero_stage": 1,
                "sequence_parallel": True,
                "recompute": "selective",
            },
        },
        "compute": compute,
        # DGX H100: 8 x CX-7 400G per node; GB200 NVL72 compute tray: 4 x CX-7 400G (1 per GPU).
        "fabric": {
            "nic_sku": "cx7-ndr-400g",
            "nic_speed_gbps": 400,
            "nics_per_node": 4 if gb200 else 8,
        },
    }


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


def moe_rows():
    rows = []
    for name, sku, gpus, tp, pp, ep, dp, batch, published, held_out in DEEPSEEK_V3:
        result = run(deepseek_v3(sku, gpus, tp, pp, ep, dp, batch))
        rows.append((name, published, result["step_time_s"], held_out, result["breakdown_s"]))
    return rows


def error_table(rows):
    print(f"\nDeepSeek-V3 DGX Cloud v25.05.04\n{'case':28s} {'published s':>12s} {'model s':>9s}")
    errors = []
    for name, published, model, held_out, breakdown in rows:
        error = model / published - 1
        errors.append(abs(error))
        mark = " (held out)" if held_out else ""
        print(f"{name:28s} {published:12.2f} {model:9.2f} {error:+8.1%}{mark}")
        parts = ", ".join(f"{k} {v:.1f}" for k, v in breakdown.items() if v > 0.05)
        print(f"    {parts}")
    print(f"mean |error| {sum(errors) / len(errors):.2%}, max {max(errors):.2%}")
    return errors


@pytest.fixture(scope="module")
def rows():
    return moe_rows()


GB200_KNOWN_GAP = 0.75


def test_deepseek_v3_dgx_cloud_step_time(rows):
    error_table(rows)
    for name, published, model, _, _ in rows:
        error = model / published - 1
        if name.startswith("H100"):
            assert abs(error) < TOLERANCE, name
        else:  # host-bound on GB200 (see module docstring): bounded, not matched
            assert -GB200_KNOWN_GAP < error < 0, name


def test_moe_overheads_are_exposed(rows):
    for name, _, _, _, breakdown in rows:
        assert breakdown["ep_comm_exposed"] > 0, name


# DeepSeek-V3 model card (deepseek-ai/DeepSeek-V3 README, "Model Summary"): 685B on Hugging
# Face = 671B main model + 14B multi-token prediction module; the module's checkpoint also
# stores the embedding and output head it shares with the main model (2 x 129280 x 7168).
MTP_PUBLISHED_B = 14.0 - 2 * 129280 * 7168 / 1e9


def test_a_multi_token_prediction_module_adds_its_published_weights_and_last_stage_work():
    doc = deepseek_v3("h100-sxm-80gb", 512, 2, 8, 64, 32, 4096)
    plain = run(doc)
    doc["workload"]["moe"]["mtp_modules"] = 1
    mtp = run(doc)
    added = mtp["model"]["parameters_total_b"] - plain["model"]["parameters_total_b"]
    print(f"\nMTP module: model {added:.2f} B, published {MTP_PUBLISHED_B:.2f} B")
    assert added == pytest.approx(MTP_PUBLISHED_B, rel=0.05)
    assert mtp["step_time_s"] > plain["step_time_s"]


# Megatron-Core's model FLOPs per token of DeepSeek-V3 at sequence 4096 (Megatron-Bridge
# flop_utils, as the performance summary prints them): 249.6 G without the MTP module, 260 G with
# it (its MoE layer and a second pass through the output head). Read off the summary's own rows.
FLOPS_PER_TOKEN_WITHOUT_MTP = 249.6e9
FLOPS_PER_TOKEN_WITH_MTP = 260.0e9


def test_megatron_bridge_deepseek_runs_carry_mtp_as_the_summary_prints_them():
    """Megatron-Bridge's DeepSeek-V3 recipe sets mtp_num_layers = 1 and places the module in the
    last pipeline chunk beside the loss, but its performance summary says per row whether the
    run trained it: the archive page's 25.11 tables print the GB300 / GB200 rows 'DeepSeekV3
    (w/o MTP)' and the B200 row 'w/ MTP', and every row's TFLOP/s per token agrees (249.6 G
    without, 260 G with). Each run is entered with the model its row names: deepseek-v3-mtp only
    where the printed FLOPs count the module. The Megatron-LM write-up's run ('Et|(tt|)*30L', no
    'm') has none. On a 16-stage pipeline the last stage holds one decoder layer, so the module
    cannot make it the slowest (B200 26.02 within 5 %); on the 25.11 GB200 MXFP8 run (PP 8 x VP
    4) a module on the last rank would make that rank the slowest, which the run does not show
    (within 5 % without it)."""
    from models_engine.validation.registry import load_registry
    from models_engine.validation.runner import run_case

    cases = [c for c in load_registry() if c.model_name.startswith("deepseek-v3")]
    bridge = [c for c in cases if "bridge" in c.family]
    assert len(bridge) == 10
    for case in bridge:
        printed = case.metric.also_published
        tflops = printed.get("model_tflops_per_gpu") or printed["tflops_per_gpu"]
        per_token = tflops * 1e12 * case.published_step_time_s * case.gpus / case.tokens_per_step
        has_mtp = case.model["moe"].get("mtp_modules") == 1
        expected = FLOPS_PER_TOKEN_WITH_MTP if has_mtp else FLOPS_PER_TOKEN_WITHOUT_MTP
        assert per_token == pytest.approx(expected, rel=0.003), case.id
    assert sum(c.model["moe"].get("mtp_modules") == 1 for c in bridge) == 6
    write_up = [c for c in cases if c.family == "megatron-lm-deepseek-v3-gb200"]
    assert write_up and all(not c.model["moe"].get("mtp_modules") for c in write_up)
    b200 = next(c for c in bridge if c.id == "bridge2602-b200-deepseek-v3-fp8-mx-256")
    assert b200.layout["pp"] == 16 and b200.layout["last_stage_layers"] == 1
    assert abs(run_case(b200).error) < 0.05
    gb200 = next(c for c in bridge if c.id == "bridge2511-gb200-deepseek-v3-fp8-mx-256")
    assert gb200.layout["pp"] == 8 and gb200.layout["virtual_stages"] == 4
    assert abs(run_case(gb200).error) < 0.05
