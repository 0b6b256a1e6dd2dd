"""Inference evaluation of a design: layout (explicit or `auto`), memory (weights + KV cache),
prefill / decode roofline, tokens/s per GPU, per-request latency and the SLO verdicts."""

import math

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


def tp_domain(compute) -> int:
    """GPUs tensor parallelism may span: the NVLink domain, or a whole node when the GPUs
    meet over PCIe (vLLM's TP=2/4 on PCIe servers; the topology charges PCIe bandwidth)."""
    if compute.nvlink_domain.kind == "pcie":
        return max(compute.nvlink_domain.gpus, compute.gpus_per_node)
    return compute.nvlink_domain.gpus


def _candidates(spec, gpu_count: int | None = None) -> list[Layout]:
    workload, compute = spec.workload, spec.compute
    heads, kv = workload.attention_heads, workload.kv_heads_effective
    gpu_count = compute.gpu_count if gpu_count is None else gpu_count
    out = []
    for tp in divisors(min(tp_domain(compute), gpu_count)):
        if heads % tp or (kv % tp and tp % kv) or workload.ffn_hidden_size % tp:
            continue
        for pp in PIPELINE_OPTIONS:
            if workload.layers % pp or gpu_count % (tp * pp):
                continue
            dp = gpu_count // (tp * pp)
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


def _with_batch(workload, batch: int):
    return workload.model_copy(
        update={"inference": workload.inference.model_copy(update={"batch_size": batch})}
    )


def _batch_options(batch: int) -> list[int]:
    """The design's batch and the powers of two below it: a smaller batch lowers the time per
    output token (less KV cache read, smaller GEMMs) at the cost of tokens/s per GPU."""
    options, value = {batch}, 1
    while value < batch:
        options.add(value)
        value *= 2
    return sorted(options, reverse=True)


def slo_sizing(spec, shape, profile, topology, capacity) -> dict | None:
    """The serving configuration (batch, tp, pp) that meets both latency SLOs and fits memory
    with the fewest GPUs for the tokens/s target; None when none within the scale-up domain
    meets them."""
    workload = spec.workload
    target = workload.inference
    layouts = _candidates(spec, gpu_count=tp_domain(spec.compute) * max(PIPELINE_OPTIONS))
    best = None
    for batch in _batch_options(target.batch_size):
        sized = _with_batch(workload, batch)
        metrics = _metrics(shape, profile, topology, sized.inference, layouts)
        memory = np.array([sum(inference_memory_gib(sized, c).values()) for c in layouts])
        ok = (memory <= capacity) & metrics["tpot_slo_met"] & metrics["ttft_slo_met"]
        for i in np.flatnonzero(ok):
            layout = layouts[int(i)]
            per_replica = float(metrics["tokens_per_s_per_replica"][i])
            replicas = math.ceil(target.target_tokens_per_s / per_replica)
            gpus = replicas * layout.tp * layout.pp
            if best is None or gpus < best["gpus_needed"]:
                best = {
                    "batch_size": batch,
                    "tp": layout.tp,
                    "pp": layout.pp,
                    "replicas": replicas,
                    "gpus_needed": gpus,
                    "time_per_output_token_ms": float(metrics["time_per_output_token_s"][i]) * 1e3,
                    "time_to_first_token_ms": float(metrics["time_to_first_token_s"][i]) * 1e3,
                    "tokens_per_s_per_replica": per_replica,
                }
    return best


def _finding(finding_id: str, message: str, path: str, gpus_needed: int | None) -> dict:
    return {
        "id": finding_id,
        "severity": "error",
        "message": message,
        "path": path,
        "gpus_needed": gpus_needed,
    }


def serving_findings(spec, chosen: dict, layout: Layout, sizing: dict | None) -> list[dict]:
    """A fleet that misses its tokens/s target or a latency SLO is a finding that says how many
    GPUs meet them: at the design's layout for throughput alone, else at the configuration
    `slo_sizing` found."""
    target, gpus = spec.workload.inference, spec.compute.gpu_count
    slo = target.latency_slo_ms
    out = []
    latency_met = chosen["tpot_slo_met"] and chosen["ttft_slo_met"]
    if not latency_met:
        misses = []
        if not chosen["tpot_slo_met"]:
            misses.append(
                f"{chosen['time_per_output_token_s'] * 1e3:.1f} ms per output token "
                f"(SLO {slo.time_per_output_token:g} ms)"
            )
        if not chosen["ttft_slo_met"]:
            misses.append(
                f"{chosen['time_to_first_token_s'] * 1e3:.0f} ms to first token "
                f"(SLO {slo.time_to_first_token:g} ms)"
            )
        fix = (
            f"batch {sizing['batch_size']} per replica at tp {sizing['tp']} x pp {sizing['pp']} "
            f"meets both ({sizing['time_per_output_token_ms']:.1f} ms, "
            f"{sizing['time_to_first_token_ms']:.0f} ms) and needs {sizing['gpus_needed']:,} GPUs "
            f"for {target.target_tokens_per_s:,.0f} tokens/s (have {gpus:,})"
            if sizing
            else "no batch size or layout within the scale-up domain meets the SLO on this GPU"
        )
        out.append(
            _finding(
                "inference-latency-slo-missed",
                f"at batch {target.batch_size}, tp {layout.tp} x pp {layout.pp} the fleet "
                f"takes {' and '.join(misses)}; {fix}",
                "workload.inference.latency_slo_ms",
                sizing["gpus_needed"] if sizing else None,
            )
        )
    if not chosen["throughput_target_met"]:
        needed = int(chosen["gpus_needed_for_target"])
        out.append(
            _finding(
                "inference-throughput-short",
                f"the fleet generates {chosen['fleet_tokens_per_s']:,.0f} tokens/s against a "
                f"target of {target.target_tokens_per_s:,.0f}: {needed:,} GPUs at this layout "
                f"(have {gpus:,})" + _cheaper(sizing, needed, latency_met),
                "compute.gpu_count",
                needed,
            )
        )
    return out


def _cheaper(sizing: dict | None, needed: int, latency_met: bool) -> str:
    if sizing is None:
        return ""
    config = f"batch {sizing['batch_size']} at tp {sizing['tp']} x pp {sizing['pp']}"
    if not latency_met:
        return f"; {sizing['gpus_needed']:,} GPUs ({config}) to meet the latency SLO as well"
    if sizing["gpus_needed"] < needed:
        return f"; {config} meets the SLO with {sizing['gpus_needed']:,} GPUs"
    return ""


def _pcie_tp_warning(spec, layout: Layout, topology: Topology, parts: dict) -> list[str]:
    if spec.compute.nvlink_domain.kind != "pcie" or layout.tp <= spec.compute.nvlink_domain.gpus:
        return []
    level = topology.scale_up
    share = parts["tp_comm"] / sum(parts.values()) if sum(parts.values()) > 0 else 0.0
    return [
        f"tensor parallelism over PCIe (tp {layout.tp}, {level.ring_busbw_gb_per_s:g} GB/s bus "
        f"bandwidth, no NVLink): its all-reduces take {share:.0%} of each decode step"
    ]


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
    result = evaluate_memory(spec, gpu, layout, stack=profile.stack)
    met = chosen["tpot_slo_met"] and chosen["ttft_slo_met"] and chosen["throughput_target_met"]
    sizing = None if met else slo_sizing(spec, shape, profile, topology, capacity)
    findings = serving_findings(spec, chosen, layout, sizing)
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
                "slo_sizing": sizing,
                "findings": findings,
                "roofline": "decode: GEMMs at M = batch (HBM-bound on weights when small) + "
                "KV-cache reads + 2 TP all-reduces per layer; prefill: compute-bound GEMMs + "
                "causal flash attention",
            },
            "auto": auto_section,
            "hardware": {"compute": profile.as_dict(), "topology": topology.as_dict()},
            "warnings": list(profile.warnings)
            + _pcie_tp_warning(spec, layout, topology, chosen["decode_parts_s"]),
            "conventions": {
                "mfu": "decode MFU: 2 x N_active x batch per decode step / (time x GPUs per "
                "replica x peak of the serving precision)",
                "tokens_per_s": "generated (output) tokens per second; prefill time is "
                "amortised over each request's output",
            },
        }
    )
    return PerformanceResult(**result)
