"""Inference evaluation of a design: layout (explicit or `auto`), memory (weights + KV cache),
prefill / decode roofline, tokens/s per GPU, per-request latency and the SLO verdicts."""

import numpy as np

from models_engine.engines.collectives import Topology
from models_engine.engines.performance.compute_profile import TERA, compute_profile
from models_engine.engines.performance.inference import inference_metrics
from models_engine.engines.performance.layout import Layout
from models_engine.engines.performance.memory_fit import (
    evaluate_memory,
    explicit_layout,
    inference_memory_gib,
)
from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.performance.search_space import divisors
from models_engine.engines.performance.shapes import model_shape

PIPELINE_OPTIONS = (1, 2, 4, 8)


def _candidates(spec) -> list[Layout]:
    workload, compute = spec.workload, spec.compute
    heads, kv = workload.attention_heads, workload.kv_heads_effective
    out = []
    for tp in divisors(min(compute.nvlink_domain.gpus, compute.gpu_count)):
        if heads % tp or (kv % tp and tp % kv) or workload.ffn_hidden_size % tp:
            continue
        for pp in PIPELINE_OPTIONS:
            if workload.layers % pp or compute.gpu_count % (tp * pp):
                continue
            dp = compute.gpu_count // (tp * pp)
            out.append(
                Layout(
                    tp=tp,
                    pp=pp,
                    dp=dp,
                    zero_stage=0,
                    recompute="none",
                    sequence_parallel=False,
                    chosen_by="auto",
                )
            )
    return out


def _metrics(shape, profile, topology, target, layouts):
    tp = np.array([c.tp for c in layouts], float)
    pp = np.array([c.pp for c in layouts], float)
    dp = np.array([c.dp for c in layouts], float)
    return inference_metrics(shape, profile, topology, target, tp, pp, dp)


def _pick(layouts, metrics, memory, capacity):
    fits = memory <= capacity
    slo = metrics["tpot_slo_met"] & metrics["ttft_slo_met"]
    score = np.where(fits, metrics["fleet_tokens_per_s"], -1.0)
    score = score + np.where(fits & slo, 1e18, 0.0)  # meeting the SLO comes first
    return int(np.argmax(score)), fits, slo


def _scalar(value, i):
    if isinstance(value, dict):
        return {k: _scalar(v, i) for k, v in value.items()}
    array = np.asarray(value)
    item = array.reshape(-1)[i] if array.size > 1 else array.reshape(-1)[0]
    return bool(item) if array.dtype == bool else float(item)


def _ranking(layouts, metrics, memory, fits, slo, best, capacity) -> list[dict]:
    fleet = metrics["fleet_tokens_per_s"]
    rows = []
    for i in (int(i) for i in np.argsort(-fleet)[:10]):
        if i == best:
            why = None
        elif not fits[i]:
            why = f"doesn't fit memory ({memory[i]:.1f} GiB > {capacity:.1f} GiB)"
        elif not slo[i]:
            why = "misses the latency SLO"
        else:
            why = f"fewer tokens/s by {(1 - fleet[i] / fleet[best]) * 100:.1f}%"
        rows.append(
            {
                "layout": layouts[i].as_dict(),
                "fleet_tokens_per_s": float(fleet[i]),
                "time_per_output_token_s": float(metrics["time_per_output_token_s"][i]),
                "memory_per_gpu_gib": float(memory[i]),
                "lost_because": why,
            }
        )
    return rows


def _auto(spec, shape, profile, topology, capacity):
    workload = spec.workload
    layouts = _candidates(spec)
    metrics = _metrics(shape, profile, topology, workload.inference, layouts)
    memory = np.array([sum(inference_memory_gib(workload, c).values()) for c in layouts])
    best, fits, slo = _pick(layouts, metrics, memory, capacity)
    chosen_by = "auto: most tokens/s meeting the SLO that fits"
    layout = Layout(**{**layouts[best].as_dict(), "chosen_by": chosen_by})
    top = _ranking(layouts, metrics, memory, fits, slo, best, capacity)
    section = {"candidates_evaluated": len(layouts), "best": top[0] if top else None, "top": top}
    return layout, _scalar(metrics, best), section


def evaluate_serving(spec, gpu, topology: Topology) -> PerformanceResult:
    workload = spec.workload
    target = workload.inference
    shape = model_shape(workload)
    profile = compute_profile(gpu, workload.precision, serving=True)
    capacity = gpu.hbm_capacity_gib
    auto_section = None
    if workload.parallelism == "auto":
        layout, chosen, auto_section = _auto(spec, shape, profile, topology, capacity)
    else:
        layout = explicit_layout(workload.parallelism)
        chosen = _scalar(_metrics(shape, profile, topology, target, [layout]), 0)
    result = evaluate_memory(spec, gpu, layout)
    gpus_per_replica = layout.tp * layout.pp
    active = shape.active_params_per_token()
    decode_flops = 2.0 * active * target.batch_size
    tpot = chosen["time_per_output_token_s"]
    result.update(
        {
            "kind": "inference",
            "step_time_s": tpot,
            "breakdown_s": chosen["decode_parts_s"],
            "tokens_per_s": chosen["fleet_tokens_per_s"],
            "tokens_per_s_per_gpu": chosen["tokens_per_s_per_gpu"],
            "tflops_per_gpu": decode_flops / tpot / gpus_per_replica / TERA,
            "mfu": decode_flops / tpot / gpus_per_replica / profile.peak_flops,
            "hfu": decode_flops / tpot / gpus_per_replica / profile.peak_flops,
            "time_to_train_days": None,
            "inference": {
                "batch_size": target.batch_size,
                "prompt_tokens": target.prompt_tokens,
                "output_tokens": target.output_tokens,
                "prefill_s_per_batch": chosen["batch_prefill_s"],
                "time_to_first_token_s": chosen["time_to_first_token_s"],
                "time_per_output_token_s": tpot,
                "request_latency_s": chosen["request_latency_s"],
                "kv_cache_gib_per_gpu": result["memory"]["per_gpu_gib"].get("kv_cache", 0.0),
                "tokens_per_s_per_gpu": chosen["tokens_per_s_per_gpu"],
                "tokens_per_s_per_replica": chosen["tokens_per_s_per_replica"],
                "replicas": layout.dp,
                "gpus_per_replica": gpus_per_replica,
                "fleet_tokens_per_s": chosen["fleet_tokens_per_s"],
                "target_tokens_per_s": target.target_tokens_per_s,
                "gpus_needed_for_target": chosen["gpus_needed_for_target"],
                "slo": {
                    "time_per_output_token_ms": target.latency_slo_ms.time_per_output_token,
                    "time_to_first_token_ms": target.latency_slo_ms.time_to_first_token,
                    "time_per_output_token_met": chosen["tpot_slo_met"],
                    "time_to_first_token_met": chosen["ttft_slo_met"],
                    "throughput_target_met": chosen["throughput_target_met"],
                    "met": chosen["tpot_slo_met"] and chosen["ttft_slo_met"],
                },
                "roofline": "decode: GEMMs at M = batch (HBM-bound on weights when small) + "
                "KV-cache reads + 2 TP all-reduces per layer; prefill: compute-bound GEMMs + "
                "causal flash attention",
            },
            "auto": auto_section,
            "hardware": {"compute": profile.as_dict(), "topology": topology.as_dict()},
            "warnings": list(profile.warnings),
            "conventions": {
                "mfu": "decode MFU: 2 x N_active x batch per decode step / (time x GPUs per "
                "replica x peak of the serving precision)",
                "tokens_per_s": "generated (output) tokens per second; prefill time is "
                "amortised over each request's output",
            },
        }
    )
    return PerformanceResult(**result)
