"""How PyTorch-native stacks differ from Megatron in the step and in memory:

- DTensor tensor parallelism waits for every collective (no asynchronous input-gradient
  reduction under the weight-gradient GEMM, stacks.py `tp_grad_overlap`);
- FSDP under gradient accumulation can reduce-scatter only the last micro-batch and hold the
  unsharded gradients in between (`workload.software_stack.fsdp_grad_sync`);
- pure BF16 training keeps 8 bytes of state per parameter (`software_stack.master_weights`);
- the loss over the output logits: fp32, on the bf16 logits or a fused kernel
  (`software_stack.cross_entropy`), split over TP or gathered whole (`embedding_tp`).

KempnerForge's H200 reports run all three; its single-node TP rows (no data-parallel traffic)
check the TP exposure."""

import itertools

import pytest

from models_engine.engines.performance.memory import BF16_STATE_BYTES
from models_engine.spec import SpecValidationError, parse_design
from models_engine.validation.registry import load_registry
from models_engine.validation.runner import evaluate_case, run_case
from tests.engine.test_performance_validation import LLAMA3_70B, design, run

GIB = 2**30
CASES = {c.id: c for c in load_registry()}


# Llama 3 70B shape, TP 4 on 4-GPU H200 nodes joined point to point (KempnerForge's weak-scaling
# layout): 8 nodes, FSDP 8 across them, micro-batch 2, 4 micro-batches per step.
def llama70b_tp4_fsdp(stack: dict, gpus: int = 32) -> dict:
    doc = design(
        gpu="h200-sxm-141gb",
        gpus=gpus,
        **LLAMA3_70B,
        seq=4096,
        batch=gpus // 4 * 2 * 4,
        precision="bf16",
        parallelism={
            "tp": 4,
            "dp": gpus // 4,
            "micro_batch_size": 2,
            "zero_stage": "fsdp",
            "sequence_parallel": True,
            "recompute": "full",
        },
    )
    doc["compute"]["gpus_per_node"] = 4
    doc["compute"]["nvlink_domain"] = {"kind": "custom", "gpus": 4, "topology": "mesh"}
    doc["fabric"] = {"nics_per_node": 4}
    doc["workload"]["software_stack"] = stack
    return doc


def collectives(result: dict, purpose: str) -> list[dict]:
    return [
        entry
        for level in result["collectives"].values()
        for entry in level["collectives"]
        if entry["purpose"] == purpose
    ]


def test_dtensor_tensor_parallelism_leaves_every_collective_exposed():
    """torchtitan's TP (DTensor) hides none of its collectives; Megatron-Core without TP
    overlap still hides the input-gradient ones under the weight-gradient GEMMs."""
    dtensor = run(llama70b_tp4_fsdp({"name": "torchtitan"}))
    gather, scatter = collectives(dtensor, "tensor parallel (SP)")
    # Per layer and micro-batch the report counts 8 all-gathers (forward 2, recomputed forward
    # 2, backward 4) and 6 reduce-scatters (2, 2, 2); the recomputed forward's are booked
    # under recompute, the rest is exposed TP communication.
    assert (gather["count_per_step"], scatter["count_per_step"]) == (8 * 320 + 4, 6 * 320 + 4)
    outside_recompute = gather["time_per_step_s"] * 6 / 8 + scatter["time_per_step_s"] * 4 / 6
    exposed = dtensor["breakdown_s"]["tp_comm_exposed"]
    assert exposed == pytest.approx(outside_recompute, rel=0.01)
    megatron = run(llama70b_tp4_fsdp({"name": "megatron-core-te-2024", "tp_comm_overlap": False}))
    assert megatron["breakdown_s"]["tp_comm_exposed"] < 0.8 * exposed


def test_single_node_tensor_parallel_runs_match_kempnerforge():
    """KempnerForge 7B on one 4-GPU node, TP 4 and TP 2 x FSDP 2 (no network traffic): the
    exposed DTensor collectives bring both within 5 % (they were 8 % fast with Megatron's
    hidden input-gradient reduction). Check-only rows, not fitted."""
    for case_id in ("kempnerforge-h200-7b-4gpu-tp4-r5", "kempnerforge-h200-7b-4gpu-tp2-r6"):
        result = run_case(CASES[case_id])
        assert abs(result.error) < 0.05, (case_id, result.error)


def test_fsdp_gradient_sync_on_the_last_microbatch_only():
    every = run(llama70b_tp4_fsdp({"name": "torchtitan"}))
    last = run(llama70b_tp4_fsdp({"name": "torchtitan", "fsdp_grad_sync": "last_microbatch"}))
    layers, microbatches = 80, 4
    (scatter_every,) = collectives(every, "data parallel gradients")
    (scatter_last,) = collectives(last, "data parallel gradients")
    assert scatter_every["count_per_step"] == layers * microbatches
    assert scatter_last["count_per_step"] == layers
    (gather,) = collectives(last, "data parallel parameters")
    assert gather["count_per_step"] == layers * microbatches * 2  # forward + backward
    assert last["breakdown_s"]["dp_comm_exposed"] < every["breakdown_s"]["dp_comm_exposed"]
    assert last["software_stack"]["fsdp_grad_sync"] == "last_microbatch"
    # memory: the unsharded gradients of this GPU's TP shard, accumulated in torchtitan's
    # reduce dtype (fp32, FSDP2's unsharded_accumulated_grad): 4 bytes per parameter, in place
    # of the 1/8 shard of them that syncing every micro-batch keeps
    held = last["memory"]["per_gpu_gib"]["gradients"]
    sharded = every["memory"]["per_gpu_gib"]["gradients"]
    # q and o: h x h, k and v: h x h/8 (8 KV heads of 64); gated MLP: 3 x h x ffn
    tp_shard_params = 80 * (2.25 * 8192**2 + 3 * 8192 * 28672) / 4
    assert held == pytest.approx(tp_shard_params * 4 / GIB, rel=0.01)
    assert sharded == pytest.approx(tp_shard_params * 4 / 8 / GIB, rel=0.01)


def test_held_gradients_follow_the_reduction_dtype():
    """A stack that reduces in bf16 (Composer's FSDP mixed precision) holds 2 bytes."""
    fp32 = run(llama70b_tp4_fsdp({"name": "torchtitan", "fsdp_grad_sync": "last_microbatch"}))
    doc = llama70b_tp4_fsdp({"name": "mosaic-composer-fsdp", "fsdp_grad_sync": "last_microbatch"})
    bf16 = run(doc)
    plain = run(llama70b_tp4_fsdp({"name": "mosaic-composer-fsdp"}))
    held_bf16 = (
        bf16["memory"]["per_gpu_gib"]["gradients"] - plain["memory"]["per_gpu_gib"]["gradients"]
    )
    every = run(llama70b_tp4_fsdp({"name": "torchtitan"}))
    held_fp32 = (
        fp32["memory"]["per_gpu_gib"]["gradients"] - every["memory"]["per_gpu_gib"]["gradients"]
    )
    assert held_bf16 == pytest.approx(held_fp32 / 2, rel=0.01)


# Peak memory per GPU in GiB (torch.cuda.max_memory_allocated / 1024**3, kempnerforge/metrics/
# memory.py) of KempnerForge's weak-scaling runs (benchmarks/weak_scaling_160gpu/README.md,
# Results table), by GPU count.
KEMPNERFORGE_MEMORY_GIB = {
    "13b": {8: 45.0, 32: 36.2, 64: 34.8, 128: 34.0, 160: 33.9},
    "70b": {8: 128.5, 32: 93.2, 64: 86.8, 96: 84.6, 128: 83.6, 160: 82.9},
}


@pytest.mark.parametrize("model", ["13b", "70b"])
def test_kempnerforge_memory_matches_the_published_peaks(model):
    """The engine's memory per GPU for KempnerForge's 13B and 70B weak-scaling runs: FSDP2
    states in pure BF16, the unsharded fp32 gradients held across micro-batches in place of
    the sharded ones, and the loss over the whole bf16 logits (replicated over TP, 8 B per
    value) peaking with the stored activations. Within 4 GiB and 8 % of every published peak,
    falling with the shard count as the published one does. Without the logits the 13B runs
    came out ~15 GiB low; with the sharded gradients on top of the held ones the 70B runs
    came out up to 18 GiB high."""
    engine = {}
    for gpus, published in KEMPNERFORGE_MEMORY_GIB[model].items():
        suffix = f"{gpus}gpu-tp4-weak"
        result, _ = evaluate_case(CASES[f"kempnerforge-h200-{model}-{suffix}"])
        total = result.memory.total_gib
        assert abs(total - published) < min(4.0, 0.08 * published), (gpus, total, published)
        engine[gpus] = total
    counts = sorted(engine)
    assert all(engine[a] > engine[b] for a, b in itertools.pairwise(counts))


def test_the_loss_over_the_logits_follows_the_stack():
    """Bytes per logit value at the loss's peak (memory.output_logits_bytes): Megatron's
    vocab-parallel loss keeps the bf16 logits and one fp32 copy (6 B) on 1/tp of the
    vocabulary; torchtitan's fp32 loss 12 B, 8 B on the bf16 logits, 4 B with a fused kernel
    (Composer's default), on the whole vocabulary once the logits are gathered (embedding_tp
    replicated)."""
    tokens_by_vocab = 2 * 4096 * 128256  # micro-batch 2 x seq 4096 x Llama 3's vocabulary
    expected = {
        ("megatron-core-te-2024", None, None): ("vocab_parallel", 6 / 4),
        ("torchtitan", None, None): ("fp32", 12 / 4),
        ("torchtitan", "bf16", None): ("bf16", 8 / 4),
        ("torchtitan", "bf16", "replicated"): ("bf16", 8.0),
        ("mosaic-composer-fsdp", None, None): ("fused", 4 / 4),
        ("mosaic-composer-fsdp", "fp32", None): ("fp32", 12 / 4),
    }
    for (name, kernel, vocab_tp), (used, per_value) in expected.items():
        stack = {"name": name}
        options = (("cross_entropy", kernel), ("embedding_tp", vocab_tp))
        stack.update({key: value for key, value in options if value})
        result = run(llama70b_tp4_fsdp(stack))
        logits = result["memory"]["per_gpu_gib"]["output_logits"]
        assert logits == pytest.approx(tokens_by_vocab * per_value / GIB, rel=1e-6), stack
        assert result["software_stack"]["cross_entropy"] == used


def test_the_cross_entropy_kernel_is_an_eager_pytorch_choice():
    doc = llama70b_tp4_fsdp({"name": "megatron-core-te-2024", "cross_entropy": "bf16"})
    with pytest.raises(SpecValidationError) as info:
        parse_design(doc)
    paths = {e["path"]: e["message"] for e in info.value.errors}
    assert "torchtitan" in paths["workload.software_stack.cross_entropy"]


def test_a_pipeline_reports_the_rank_that_needs_the_most():
    """With PP the output head, its logits and the loss sit on the last rank, which holds
    one micro-batch in flight under 1F1B against the first rank's p. With full
    recomputation (little stored per layer) the logits tip the last rank over the first; with
    none, the first rank's in-flight activations dominate and no logits are counted there."""
    doc = llama70b_tp4_fsdp({"name": "megatron-core-te-2024"})
    doc["workload"]["parallelism"].update({"pp": 2, "dp": 4, "zero_stage": 1})
    last = run(doc)["memory"]
    assert last["stage"].startswith("last pipeline stage")
    logits = 2 * 4096 * 128256 / 4 * 6  # micro-batch 2 x seq x vocab / TP x Megatron's 6 B
    assert last["per_gpu_gib"]["output_logits"] == pytest.approx(logits / GIB, rel=1e-9)
    doc["workload"]["parallelism"]["recompute"] = "none"
    first = run(doc)["memory"]
    assert first["stage"].startswith("first pipeline stage")
    assert first["per_gpu_gib"]["output_logits"] == 0.0


def test_one_microbatch_holds_no_gradients():
    doc = llama70b_tp4_fsdp({"name": "torchtitan", "fsdp_grad_sync": "last_microbatch"})
    doc["workload"]["global_batch_sequences"] = 16  # 8 replicas x micro-batch 2: one each
    plain = llama70b_tp4_fsdp({"name": "torchtitan"})
    plain["workload"]["global_batch_sequences"] = 16
    assert run(doc)["memory"]["per_gpu_gib"] == run(plain)["memory"]["per_gpu_gib"]


def test_pure_bf16_training_keeps_eight_bytes_per_parameter():
    mixed = run(llama70b_tp4_fsdp({"name": "torchtitan"}))["memory"]["per_gpu_gib"]
    bf16 = run(llama70b_tp4_fsdp({"name": "torchtitan", "master_weights": "bf16"}))
    states = bf16["memory"]["per_gpu_gib"]
    per_param = sum(BF16_STATE_BYTES.values())
    assert per_param == 8
    # FSDP shards weights, gradients and moments alike: the ratio of the sums is 8 : 16
    ratio = sum(states[k] for k in ("weights", "gradients", "optimizer_states")) / sum(
        mixed[k] for k in ("weights", "gradients", "optimizer_states")
    )
    assert ratio == pytest.approx(8 / 16, rel=1e-6)
    assert bf16["software_stack"]["master_weights"] == "bf16"
    assert bf16["step_time_s"] == pytest.approx(
        run(llama70b_tp4_fsdp({"name": "torchtitan"}))["step_time_s"]
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("fsdp_grad_sync", "never"),
        ("master_weights", "fp8"),
        ("embedding_tp", "sharded"),
        ("cross_entropy", "fp16"),
    ],
)
def test_bad_stack_options_name_the_field_and_the_choices(field, value):
    with pytest.raises(SpecValidationError) as info:
        parse_design(llama70b_tp4_fsdp({"name": "torchtitan", field: value}))
    (error,) = [e for e in info.value.errors if e["path"] == f"workload.software_stack.{field}"]
    assert "must be one of" in error["message"]


def test_kempnerforge_runs_are_entered_with_their_stack():
    kempner = [c for c in CASES.values() if c.family == "kempnerforge-h200"]
    for case in kempner:
        options = dict(case.stack.options)
        assert options["fsdp_grad_sync"] == "last_microbatch", case.id
        assert options["master_weights"] == "bf16", case.id
        # kempnerforge/distributed/tensor_parallel.py: "Token embedding: Replicated"
        assert options["embedding_tp"] == "replicated", case.id
        # kempnerforge/training/loss.py: F.cross_entropy on the bf16 logits
        assert options["cross_entropy"] == "bf16", case.id


def test_fsdp_root_unit_is_gathered_once_per_microbatch_and_fully_exposed():
    """PyTorch FSDP keeps the embedding and output head in the root unit: gathered before
    each micro-batch (nothing to hide behind) and kept until its backward ends, reduce-scattered
    once after the last backward. The step's exposed time holds exactly the report's root
    collectives; the per-layer units no longer carry the embedding."""
    result, _ = evaluate_case(CASES["kempnerforge-h200-7b-32gpu-tp4-r12"])
    report = result.collectives["scale_out"]["collectives"]
    root = {c["operation"]: c for c in report if "FSDP root" in c["purpose"]}
    microbatches = result.microbatches_per_step
    assert root["all_gather"]["count_per_step"] == microbatches
    assert root["reduce_scatter"]["count_per_step"] == 1  # gradient sync on the last one only
    # KempnerForge replicates the input embedding over TP: the whole table (128,256 x 4,096)
    # and a quarter of the untied head, gathered in BF16 and reduced in fp32
    params = 128256 * 4096 * (1 + 1 / 4)
    assert root["all_gather"]["size_bytes"] == pytest.approx(params * 2, rel=1e-3)
    assert root["reduce_scatter"]["size_bytes"] == pytest.approx(params * 4, rel=1e-3)
    root_time = sum(c["time_per_step_s"] for c in root.values())
    assert result.breakdown_s["dp_comm_exposed"] >= root_time


def test_root_unit_and_replicated_embedding_follow_the_data_parallel_growth():
    """KempnerForge 7B, TP 4 on 1, 2, 4 and 8 nodes: the published step grows 0.18, 0.28 and
    0.38 s over the single node; the root unit's exposed gathers and reduce-scatter (of a
    TP-replicated embedding) give the engine about a third of that growth, where per-layer
    units alone gave about a tenth (KNOWN GAP: the rest is not modelled). Check-only rows."""
    ids = ["4gpu-tp4-r5", "8gpu-tp4-r7", "16gpu-tp4-r10", "32gpu-tp4-r12"]
    runs = [run_case(CASES[f"kempnerforge-h200-7b-{suffix}"]) for suffix in ids]
    base_model, base_published = runs[0].model_step_time_s, runs[0].published_step_time_s
    for result in runs[1:]:
        grown = result.model_step_time_s - base_model
        published = result.published_step_time_s - base_published
        assert 0.3 * published < grown < published, (result.id, grown, published)


def test_replicated_input_embedding_costs_memory_on_every_tp_rank():
    split = run(llama70b_tp4_fsdp({"name": "torchtitan"}))["memory"]["per_gpu_gib"]
    whole = run(llama70b_tp4_fsdp({"name": "torchtitan", "embedding_tp": "replicated"}))
    states = whole["memory"]["per_gpu_gib"]["embedding_states"]
    # input table 128,256 x 8,192: 1/4 on each TP rank before, whole now; FSDP shards the
    # states (16 B per parameter, fp32 reduction) over the 8 data-parallel ranks
    extra = 128256 * 8192 * (1 - 1 / 4) * 16 / 8 / GIB
    assert states - split["embedding_states"] == pytest.approx(extra, rel=0.01)
    assert whole["software_stack"]["embedding_tp"] == "replicated"


def test_tight_memory_is_flagged():
    """KempnerForge's 70B on 8 GPUs (the source's own memory-bound point) gets the warning;
    the same model on 32 GPUs, with ~50 GiB left, does not."""
    tight, _ = evaluate_case(CASES["kempnerforge-h200-70b-8gpu-tp4-weak"])
    roomy, _ = evaluate_case(CASES["kempnerforge-h200-70b-32gpu-tp4-weak"])
    assert tight.memory.fits and tight.memory.headroom_gib < 0.1 * tight.memory.hbm_capacity_gib
    assert any(w.startswith("memory is tight") for w in tight.warnings)
    assert not any(w.startswith("memory is tight") for w in roomy.warnings)


def test_replicated_logits_are_gathered_over_tp_before_the_loss():
    """KempnerForge's output head gathers the whole logits over the TP ranks (ColwiseParallel,
    output_layouts Replicate): one all-gather of micro-batch x sequence x vocabulary bf16
    values per micro-batch, exposed, and the loss then runs over the whole vocabulary."""
    split = run(llama70b_tp4_fsdp({"name": "torchtitan"}))
    whole = run(llama70b_tp4_fsdp({"name": "torchtitan", "embedding_tp": "replicated"}))
    (gather,) = collectives(whole, "tensor parallel (logits for the loss)")
    assert gather["operation"] == "all_gather"
    assert gather["size_bytes"] == pytest.approx(2 * 4096 * 128256 * 2, rel=1e-9)
    assert gather["count_per_step"] == whole["microbatches_per_step"] == 4
    assert collectives(split, "tensor parallel (logits for the loss)") == []
    added = whole["breakdown_s"]["tp_comm_exposed"] - split["breakdown_s"]["tp_comm_exposed"]
    assert added == pytest.approx(gather["time_per_step_s"], rel=1e-6)
