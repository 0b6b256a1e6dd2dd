"""Training one model across sites: synchronous data parallelism over the WAN against the
alternatives that talk less often (hierarchical, async averaging, federated).

Cross-site exchange is a ring all-reduce over the S sites of a buffer of B bytes, after each
site has reduced inside itself (the intra-site part is the collectives engine's):
    time = 2(S-1)/S x B / bottleneck bandwidth + 2(S-1) x one-way latency
which each site also sends as egress, 2(S-1)/S x B bytes per exchange."""

from __future__ import annotations

import math
from dataclasses import dataclass

# Share of a step's compute the gradient all-reduce can hide behind: the backward pass is
# ~2/3 of the FLOPs and bucketed all-reduce overlaps it (PyTorch DDP / Megatron overlap).
OVERLAP_FRACTION = 2.0 / 3.0
# Synchronous training across sites is called viable when the exposed WAN time adds at most
# this much to a step (engine policy).
SYNC_VIABLE_SLOWDOWN = 0.10
# Periodic averaging is sized so that its blocking exchange adds at most this per step.
AVERAGING_TARGET_SLOWDOWN = 0.05


@dataclass(frozen=True)
class Exchange:
    sites: int
    bandwidth_bytes_per_s: float
    one_way_latency_s: float

    def time_s(self, buffer_bytes: float) -> float:
        s = self.sites
        return (
            2 * (s - 1) / s * buffer_bytes / self.bandwidth_bytes_per_s
            + 2 * (s - 1) * self.one_way_latency_s
        )

    def egress_bytes(self, buffer_bytes: float) -> float:
        """Bytes leaving all sites together for one exchange."""
        return 2 * (self.sites - 1) * buffer_bytes


def _option(
    name: str,
    *,
    exchange_every_steps: int,
    wan_time_s: float,
    egress_per_exchange: float,
    compute_s: float,
    added_per_step_s: float,
    staleness_steps: float,
    note: str,
) -> dict:
    step = compute_s + added_per_step_s
    return {
        "strategy": name,
        "exchange_every_steps": exchange_every_steps,
        "wan_time_per_exchange_s": wan_time_s,
        "communication_bytes_per_step": egress_per_exchange / exchange_every_steps,
        "wan_added_s_per_step": added_per_step_s,
        "step_time_s": step,
        "step_time_increase_fraction": added_per_step_s / compute_s,
        "staleness_steps": staleness_steps,
        "note": note,
    }


def evaluate_strategies(
    *,
    exchange: Exchange,
    gradient_bytes: float,
    model_bytes: float,
    compute_s: float,
    interval_steps: int,
) -> list[dict]:
    """Each strategy's WAN time added to the single-site step `compute_s` (the performance
    engine's step, which holds no WAN time), once per step."""
    k = max(1, interval_steps)
    sync_time = exchange.time_s(gradient_bytes)
    exposed = max(0.0, sync_time - OVERLAP_FRACTION * compute_s)
    round_time = exchange.time_s(model_bytes)
    model_egress = exchange.egress_bytes(model_bytes)
    return [
        _option(
            "synchronous",
            exchange_every_steps=1,
            wan_time_s=sync_time,
            egress_per_exchange=exchange.egress_bytes(gradient_bytes),
            compute_s=compute_s,
            added_per_step_s=exposed,
            staleness_steps=0,
            note="every step all-reduces the gradients across sites; the part not hidden "
            f"behind the backward pass ({OVERLAP_FRACTION:.0%} of compute) adds to the step",
        ),
        _option(
            "hierarchical",
            exchange_every_steps=k,
            wan_time_s=round_time,
            egress_per_exchange=model_egress,
            compute_s=compute_s,
            added_per_step_s=round_time / k,
            staleness_steps=k,
            note=f"synchronous inside each site; sites average their models every {k} steps "
            "(blocking), so replicas drift for up to k steps (DiLoCo-style)",
        ),
        _option(
            "async-averaging",
            exchange_every_steps=k,
            wan_time_s=round_time,
            egress_per_exchange=model_egress,
            compute_s=compute_s,
            added_per_step_s=max(0.0, round_time - k * compute_s) / k,
            staleness_steps=k + math.ceil(round_time / compute_s),
            note="the averaging runs in the background while sites keep training; the merged "
            "model is older by the exchange time",
        ),
        _option(
            "federated",
            exchange_every_steps=k,
            wan_time_s=round_time,
            egress_per_exchange=model_egress,
            compute_s=compute_s,
            added_per_step_s=round_time / k,
            staleness_steps=k,
            note="each site trains on its own data only; model updates are aggregated every "
            "k steps and raw data never leaves its site (data-residency friendly)",
        ),
    ]


def recommend(
    options: list[dict],
    *,
    residency_bound: bool,
    exchange: Exchange,
    model_bytes: float,
    compute_s: float,
) -> dict:
    by_name = {option["strategy"]: option for option in options}
    sync = by_name["synchronous"]
    if sync["step_time_increase_fraction"] <= SYNC_VIABLE_SLOWDOWN:
        return {
            "strategy": "synchronous",
            "averaging_interval_steps": None,
            "reason": f"the WAN all-reduce adds {sync['step_time_increase_fraction']:.1%} to a "
            f"step (<= {SYNC_VIABLE_SLOWDOWN:.0%}): no staleness, no convergence risk",
        }
    round_time = exchange.time_s(model_bytes)
    k = max(1, math.ceil(round_time / (AVERAGING_TARGET_SLOWDOWN * compute_s)))
    name = "federated" if residency_bound else "hierarchical"
    why = (
        "some data may not leave its jurisdiction, so each site trains on its own data"
        if residency_bound
        else "sites stay synchronous inside and exchange the model periodically"
    )
    return {
        "strategy": name,
        "averaging_interval_steps": k,
        "reason": f"synchronous all-reduce over the WAN would add "
        f"{sync['step_time_increase_fraction']:.0%} to every step "
        f"({sync['wan_time_per_exchange_s']:.2f} s per exchange vs {compute_s:.2f} s of "
        f"compute); {why}; averaging every {k} steps keeps the cost under "
        f"{AVERAGING_TARGET_SLOWDOWN:.0%} ({round_time:.1f} s per exchange)",
    }
