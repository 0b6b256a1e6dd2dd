"""The scale-up (NVLink) domain: GPUs per domain, NVLink bandwidth, NVSwitch chips, and the
domain's all-to-all bandwidth.

Bandwidth conventions: the catalog's NVLink figure is per GPU, both directions summed (H100 900
GB/s = 18 links x 50 GB/s). A non-blocking NVSwitch domain moves half of it per direction:
- all-to-all (one direction) = GPUs x NVLink / 2;
- aggregate (both directions) = GPUs x NVLink (GB200 NVL72: 72 x 1.8 TB/s = 129.6 TB/s, the
  "130 TB/s" NVIDIA quotes);
- bisection (one direction) = GPUs / 2 x NVLink / 2.
"""

from __future__ import annotations

import math

from .data import NVL72_SWITCH_CHIPS_PER_TRAY, NVL72_SWITCH_TRAYS, NVSWITCH_CHIPS_PER_HGX8


def nvswitch_chips_per_domain(kind: str, nvlink_gbytes_per_s: float) -> int | None:
    """NVSwitch chips in one domain; None when no published figure applies."""
    if kind == "pcie":
        return 0
    if kind == "nvl72":
        return NVL72_SWITCH_TRAYS * NVL72_SWITCH_CHIPS_PER_TRAY
    if kind == "hgx-nvswitch-8":
        return NVSWITCH_CHIPS_PER_HGX8.get(float(nvlink_gbytes_per_s))
    return None


def evaluate_scale_up(compute, gpu) -> dict:
    """Scale-up domain figures for the `compute` section and resolved `gpu` figures."""
    domain = compute.nvlink_domain
    gpus = domain.gpus
    nvlink = float(gpu.nvlink_gbytes_per_s_per_gpu or 0.0)
    if gpus <= 1:
        nvlink = 0.0  # a lone PCIe GPU has no scale-up peer
    domains = math.ceil(compute.gpu_count / gpus)
    chips = nvswitch_chips_per_domain(domain.kind, nvlink)
    return {
        "kind": domain.kind,
        "gpus_per_domain": gpus,
        "domains": domains,
        "nvlink_gbytes_per_s_per_gpu": nvlink,
        "nvswitch_chips_per_domain": chips,
        "nvswitch_chips_total": None if chips is None else chips * domains,
        "domain_all_to_all_gbytes_per_s": gpus * nvlink / 2.0,
        "domain_aggregate_gbytes_per_s_bidirectional": gpus * nvlink,
        "domain_bisection_gbytes_per_s": (gpus / 2.0) * nvlink / 2.0,
        "convention": (
            "nvlink per GPU is both directions summed; all-to-all and bisection are one "
            "direction; aggregate is both directions"
        ),
    }
