"""Every collective one single-site training step runs, grouped by hierarchy level (NVLink
domain, scale-out fabric): algorithm, bytes, time, busbw, count per step. The cross-site (WAN)
exchange is the regions engine's (`cross_region`). Uses the same sizes
and group placements as the step model (comm_sizes, Megatron rank order tp-cp-ep-dp-pp)."""

from models_engine.engines.collectives import evaluate_collective
from models_engine.engines.performance.comm_sizes import (
    PARAM_GATHER_BYTES,
    cp_kv_bytes,
    ep_exchange_bytes,
    ep_local_peers,
    logits_gather_bytes,
    pp_activation_bytes,
    ring_peers_local,
    stride_local,
    tp_activation_bytes,
)
from models_engine.engines.performance.data_parallel import (
    gradient_reductions,
    stage_layer_count,
    stage_params,
)
from models_engine.engines.performance.fine_tuning import FULL, Tuning, layer_trained_share
from models_engine.engines.performance.layer_cost import moe_imbalance

LEVELS = ("nvlink_domain", "scale_out")


def _entry(purpose, operation, size, ranks, local, topology, count):
    result = evaluate_collective(operation, size, ranks, topology, ranks_per_domain=local)
    result.update(
        {
            "purpose": purpose,
            "count_per_step": float(count),
            "time_per_step_s": result["time_s"] * float(count),
        }
    )
    return result


def _scalar(array):
    return float(array[0])


def _root_entries(params, grad_bytes, ranks, local, topology, m, stack):
    """FSDP's root unit: one gather per micro-batch, one reduce-scatter per reducing one."""
    scatters = float(gradient_reductions(3, m, stack))
    label = "data parallel {} (FSDP root: embedding, output head)"
    return [
        _entry(
            label.format("gradients"),
            "reduce_scatter",
            params * grad_bytes,
            ranks,
            local,
            topology,
            scatters,
        ),
        _entry(
            label.format("parameters"),
            "all_gather",
            params * PARAM_GATHER_BYTES,
            ranks,
            local,
            topology,
            m,
        ),
    ]


def collective_report(shape, cand, profile, topology, microbatches, tuning: Tuning = FULL):
    """`cand` holds exactly one layout."""
    entries = []
    m = _scalar(microbatches)
    tp, cp, pp, dp, ep = (_scalar(x) for x in (cand.tp, cand.cp, cand.pp, cand.dp, cand.ep))
    vp, sp, recompute = _scalar(cand.vp), bool(cand.sp[0]), int(cand.recompute[0])
    layers = max(_scalar(cand.first_layers), _scalar(cand.last_layers), _scalar(cand.middle_layers))
    domain = topology.scale_up.gpus
    full = recompute == 2  # full recomputation re-runs the forward collectives
    if tp > 1:
        size = _scalar(tp_activation_bytes(shape, cand))
        per_mb = layers * m
        if sp:
            gathers = (6 + (2 if full else 0)) * per_mb + 1 * m
            scatters = (4 + (2 if full else 0)) * per_mb + 1 * m
            entries.append(
                _entry("tensor parallel (SP)", "all_gather", size, tp, tp, topology, gathers)
            )
            entries.append(
                _entry("tensor parallel (SP)", "reduce_scatter", size, tp, tp, topology, scatters)
            )
        else:
            count = (4 + (2 if full else 0)) * per_mb + 2 * m
            entries.append(_entry("tensor parallel", "all_reduce", size, tp, tp, topology, count))
        if profile.stack.embedding_tp == "replicated":
            logits = _scalar(logits_gather_bytes(shape, cand))
            entries.append(
                _entry(
                    "tensor parallel (logits for the loss)",
                    "all_gather",
                    logits,
                    tp,
                    tp,
                    topology,
                    m,
                )
            )
    if cp > 1:
        kv = _scalar(cp_kv_bytes(shape, cand))
        local = int(ring_peers_local(tp * cp, domain))
        count = layers * m * (cp - 1)
        entries.append(
            _entry("context parallel ring (K/V)", "send_recv", kv, 2, local, topology, count)
        )
        entries.append(
            _entry("context parallel ring (dK/dV)", "send_recv", 2 * kv, 2, local, topology, count)
        )
    if ep > 1 and shape.moe_layers:
        local = int(_scalar(ep_local_peers(cand, domain)))
        imbalance = moe_imbalance(shape, cand)
        size = _scalar(
            ep_exchange_bytes(shape, cand, imbalance, local, profile.stack.ep_dispatcher)
        )
        moe_layers = layers * shape.moe_layers / shape.layers
        entries.append(
            _entry(
                "expert parallel dispatch/combine",
                "all_to_all",
                size,
                ep,
                local,
                topology,
                (4 + (2 if full else 0)) * moe_layers * m,
            )
        )
    if pp > 1:
        size = _scalar(pp_activation_bytes(shape, cand))
        local = int(ring_peers_local(tp * cp * dp * 2, domain))
        entries.append(
            _entry(
                "pipeline activations/gradients", "send_recv", size, 2, local, topology, 2 * vp * m
            )
        )
    stack = profile.stack
    dense, expert, root = (float(x[0]) for x in stage_params(shape, cand, stack.embedding_tp))
    etp, expert_dp = _scalar(cand.etp), _scalar(cand.expert_replicas)
    zero = int(cand.zero[0])
    # FSDP's root unit (data_parallel.fsdp_root_exposed_s): apart from the per-layer units.
    root = root if (zero == 3 and stack.fsdp_root_unit) else 0.0
    # Fine-tuning reduces the gradients of the weights that train only (fine_tuning.py).
    grad_bytes = profile.stack.grad_reduce_bytes * layer_trained_share(shape, tuning)
    shard = min(float(cand.shard[0]), dp * cp)
    # ZeRO-3 / FSDP gathers and reduce-scatters each layer (data_parallel._fully_sharded).
    layers = float(stage_layer_count(cand)[0]) if zero == 3 else 1.0
    for label, params, replicas, group, stride, root_params in (
        ("data parallel", dense, dp * cp, shard, tp, root),
        ("expert data parallel", expert, expert_dp, expert_dp, etp * ep, 0.0),
    ):
        if replicas <= 1 or params <= 0:
            continue
        ranks = int(replicas) if zero == 0 else int(group)
        local = int(stride_local(stride, ranks, domain))
        if root_params > 0:
            entries.extend(
                _root_entries(root_params, grad_bytes, ranks, local, topology, m, profile.stack)
            )
            params = params - root_params
        grads, weights = params * grad_bytes, params * PARAM_GATHER_BYTES
        if zero == 0:
            entries.append(
                _entry(f"{label} gradients", "all_reduce", grads, ranks, local, topology, 1)
            )
            continue
        if replicas > group:  # hybrid sharding: the shard's gradients across the groups
            groups = int(replicas / group)
            cross_local = int(stride_local(stride * group, groups, domain))
            size = grads / group / layers
            count = layers * float(gradient_reductions(zero, m, profile.stack))
            entries.append(
                _entry(
                    f"{label} gradients across shard groups",
                    "all_reduce",
                    size,
                    groups,
                    cross_local,
                    topology,
                    count,
                )
            )
        grads, weights = grads / layers, weights / layers
        scatter_count = layers * float(gradient_reductions(zero, m, profile.stack))
        gather_count = layers * (2 * m if zero == 3 else 1)
        entries.append(
            _entry(
                f"{label} gradients", "reduce_scatter", grads, ranks, local, topology, scatter_count
            )
        )
        entries.append(
            _entry(
                f"{label} parameters", "all_gather", weights, ranks, local, topology, gather_count
            )
        )
    report = {level: [] for level in LEVELS}
    for entry in entries:
        report[entry["level"] if entry["level"] != "none" else "nvlink_domain"].append(entry)
    return {
        level: {
            "collectives": items,
            "time_per_step_s": sum(item["time_per_step_s"] for item in items),
        }
        for level, items in report.items()
    }
