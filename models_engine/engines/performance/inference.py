"""Inference: prefill and decode of one model replica (tp x pp GPUs) as a roofline over the
same kernel model as training (GEMMs at M = tokens in flight, so small-batch decode comes out
HBM-bound on the weights), KV-cache reads, and the TP all-reduces of every layer, which set
a latency floor per token. Vectorised over candidate (tp, pp) layouts for `auto`."""

import numpy as np

from models_engine.engines.collectives import collective_time_s
from models_engine.engines.performance.comm_sizes import ACTIVATION_BYTES
from models_engine.engines.performance.kernels import flash_attention_time_s, gemm_time_s
from models_engine.engines.performance.memory_fit import INFERENCE_WEIGHT_BYTES


def _layer_gemms_s(shape, tokens, tp, profile):
    """Forward GEMMs of one layer on `tokens` tokens (dense MLP, or the active experts)."""
    h = shape.hidden
    attention = gemm_time_s(tokens, h, shape.attention_width / tp, profile)
    for gemm in shape.attention.input_gemms():
        width = gemm.out_width / tp if gemm.sharded else gemm.out_width
        attention = attention + gemm_time_s(tokens, width, gemm.in_width, profile)
    ffn = shape.ffn
    copies = 1.0
    if shape.moe_layers:
        # An MoE layer streams every expert a token picks: top_k + shared expert weights.
        ffn = shape.expert_ffn
        copies = float(shape.top_k + shape.shared_experts)
    mlp = copies * (
        gemm_time_s(tokens, (shape.mlp_matrices - 1) * ffn / tp, h, profile)
        + gemm_time_s(tokens, h, ffn / tp, profile)
    )
    return attention + mlp


def _tp_allreduce_s(shape, tokens, tp, topology):
    size = tokens * shape.hidden * ACTIVATION_BYTES
    t = collective_time_s("all_reduce", size, tp, tp, topology)[0]
    return np.where(tp > 1, 2.0 * t, 0.0)  # after attention and after the MLP


def decode_step_s(shape, profile, topology, tp, pp, batch, context):
    """One generated token for `batch` sequences with `context` tokens of KV cache each.
    Returns (step time, parts dict)."""
    kv_bytes = INFERENCE_WEIGHT_BYTES.get(profile.precision, 2)
    gemms = _layer_gemms_s(shape, batch, tp, profile)
    # K and V of the KV heads, or MLA's latent (attention_shape.AttentionShape.kv_cache_width)
    kv_read = batch * context * shape.attention.kv_cache_width(tp) * kv_bytes
    attention = kv_read / profile.hbm_bytes_per_s
    comm = _tp_allreduce_s(shape, batch, tp, topology)
    layers = float(shape.layers)
    head = gemm_time_s(batch, shape.vocab / tp, shape.hidden, profile, fp8=False)
    p2p = collective_time_s("send_recv", batch * shape.hidden * ACTIVATION_BYTES, 2, 1, topology)[0]
    parts = {
        "weights_and_gemms": layers * gemms + head,
        "kv_cache_read": layers * attention,
        "tp_comm": layers * comm,
        "pp_comm": (pp - 1.0) * p2p,
    }
    return sum(parts.values()), parts


def prefill_s(shape, profile, topology, tp, pp, tokens, prompt):
    """Prefill of `tokens` prompt tokens (requests of `prompt` tokens each)."""
    gemms = _layer_gemms_s(shape, tokens, tp, profile)
    attention, _ = flash_attention_time_s(
        tokens, prompt / 2.0, prompt, shape.heads / tp, shape.attention.core_head_dim, profile
    )
    comm = _tp_allreduce_s(shape, tokens, tp, topology)
    head = gemm_time_s(tokens / prompt, shape.vocab / tp, shape.hidden, profile, fp8=False)
    return shape.layers * (gemms + attention + comm) + head


def inference_metrics(shape, profile, topology, target, tp, pp, replicas):
    """Arrays over candidate (tp, pp, replicas)."""
    batch, prompt, output = target.batch_size, target.prompt_tokens, target.output_tokens
    mean_context = prompt + output / 2.0
    tpot, parts = decode_step_s(shape, profile, topology, tp, pp, batch, mean_context)
    ttft = prefill_s(shape, profile, topology, tp, pp, float(prompt), float(prompt))
    batch_prefill = prefill_s(
        shape, profile, topology, tp, pp, float(prompt * batch), float(prompt)
    )
    cycle = batch_prefill + output * tpot  # a batch of requests from prompt to last token
    replica_tokens_per_s = batch * output / cycle
    gpus = tp * pp
    per_gpu = replica_tokens_per_s / gpus
    fleet = replica_tokens_per_s * replicas
    slo = target.latency_slo_ms
    return {
        "time_per_output_token_s": tpot,
        "time_to_first_token_s": ttft,
        "request_latency_s": ttft + output * tpot,
        "batch_prefill_s": batch_prefill,
        "decode_parts_s": parts,
        "tokens_per_s_per_gpu": per_gpu,
        "tokens_per_s_per_replica": replica_tokens_per_s,
        "fleet_tokens_per_s": fleet,
        "gpus_needed_for_target": np.ceil(target.target_tokens_per_s / per_gpu / gpus) * gpus,
        "tpot_slo_met": tpot * 1e3 <= slo.time_per_output_token,
        "ttft_slo_met": ttft * 1e3 <= slo.time_to_first_token,
        "throughput_target_met": fleet >= target.target_tokens_per_s,
    }
