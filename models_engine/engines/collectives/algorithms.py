"""Time of one collective on the hierarchy, vectorised over numpy arrays of sizes and group
shapes. Each algorithm's time = latency + bus_bytes / busbw + size ramp, NCCL-style, and
'auto' picks the fastest, as NCCL's tuner does.

A group is described by `ranks` (its size) and `ranks_per_domain` (how many of its members
share one NVLink domain; Megatron orders ranks tp -> cp -> dp -> pp, so a group of stride k
has domain_gpus // k members per domain).
"""

import numpy as np

from models_engine.engines.collectives.constants import (
    BASE_LATENCY_US,
    HOP_LATENCY_US,
    PIPELINE_FILL_S,
    SMALL_MESSAGE_BW_FRACTION,
)
from models_engine.engines.collectives.conventions import bus_factor, ring_steps

ALGORITHMS = ("ring", "tree", "nvls", "direct", "none")
RING, TREE, NVLS, DIRECT, NONE = range(5)
_BIG = 1e30


def ramp_s(bus_bytes, busbw_bytes_per_s):
    """Extra time of the message-size ramp (constants.py): small messages see a fraction of the
    bandwidth; the extra saturates at the pipeline fill time for large ones."""
    safe = np.maximum(bus_bytes, 1.0)
    return 1.0 / (SMALL_MESSAGE_BW_FRACTION * busbw_bytes_per_s / safe + 1.0 / PIPELINE_FILL_S)


def _transfer_s(latency_s, bus_bytes, busbw_gb_per_s):
    bw = np.maximum(busbw_gb_per_s, 1e-9) * 1e9
    return latency_s + bus_bytes / bw + ramp_s(bus_bytes, bw)


def domains_spanned(ranks, ranks_per_domain):
    return np.maximum(1.0, np.ceil(np.asarray(ranks, float) / np.maximum(ranks_per_domain, 1)))


def scale_out_busbw_per_gpu(domains, topology):
    """Per-GPU scale-out busbw of traffic spread over `domains` NVLink domains, as the fabric
    engine built the fabric: inside one leaf, across leaves (leaf oversubscription) or across
    pods (leaf x spine oversubscription)."""
    up, out = topology.scale_up, topology.scale_out
    nodes = domains * max(1, up.gpus // max(topology.gpus_per_node, 1))
    return np.where(
        nodes > out.nodes_per_pod,
        out.cross_pod_busbw_gb_per_s_per_gpu,
        np.where(
            nodes > out.nodes_per_leaf,
            out.cross_leaf_busbw_gb_per_s_per_gpu,
            out.nic_busbw_gb_per_s_per_gpu,
        ),
    )


def inter_domain_busbw_gb_per_s(ranks_per_domain, domains, topology):
    """Per-rank busbw of a ring that leaves the NVLink domain: the domain's members each drive
    their own NIC (rail-aligned), and never faster than the NVLink ring inside the domain."""
    up = topology.scale_up
    nics = np.minimum(ranks_per_domain, max(up.gpus, 1)) * scale_out_busbw_per_gpu(
        domains, topology
    )
    return np.minimum(up.ring_busbw_gb_per_s, nics)


def _hop_s(link: str, algorithm: str) -> float:
    return HOP_LATENCY_US[link][algorithm] * 1e-6


def collective_time_s(operation, size_bytes, ranks, ranks_per_domain, topology):
    """(time_s, algorithm index, busbw_gb_per_s of the chosen algorithm) for each element.

    size_bytes follows nccl-tests (full buffer; all-gather output; reduce-scatter input)."""
    size = np.asarray(size_bytes, dtype=float)
    n = np.maximum(np.asarray(ranks, dtype=float), 1.0)
    local = np.minimum(np.maximum(np.asarray(ranks_per_domain, dtype=float), 1.0), n)
    size, n, local = np.broadcast_arrays(size, n, local)
    if operation == "send_recv":
        return _send_recv(size, n, local, topology)
    if operation == "all_to_all":
        return _all_to_all(size, n, local, topology)
    domains = domains_spanned(n, local)
    bus_bytes = size * bus_factor(operation, n)
    up = topology.scale_up
    intra_link = up.link
    single = domains <= 1
    busbw = np.where(
        single, up.ring_busbw_gb_per_s, inter_domain_busbw_gb_per_s(local, domains, topology)
    )
    steps = ring_steps(operation, n)
    inter_steps = np.where(single, 0.0, ring_steps(operation, domains))
    ring_latency = (
        BASE_LATENCY_US["ring"] * 1e-6
        + (steps - inter_steps) * _hop_s(intra_link, "ring")
        + inter_steps * _hop_s("network", "ring")
    )
    times = [_transfer_s(ring_latency, bus_bytes, busbw)]
    busbws = [busbw]
    if operation == "all_reduce":
        tree_latency = BASE_LATENCY_US["tree"] * 1e-6 + 2.0 * (
            (local - 1.0) * _hop_s(intra_link, "tree")
            + np.log2(np.maximum(domains, 1.0)) * _hop_s("network", "tree")
        )
        times.append(_transfer_s(tree_latency, bus_bytes, busbw))
        busbws.append(busbw)
        if up.nvls_busbw_gb_per_s:
            nvls_latency = BASE_LATENCY_US["nvls"] * 1e-6 + _hop_s("nvlink", "nvls")
            nvls = _transfer_s(nvls_latency, bus_bytes, up.nvls_busbw_gb_per_s)
            times.append(np.where(single & (n > 1), nvls, _BIG))
            busbws.append(np.full_like(size, up.nvls_busbw_gb_per_s))
    else:
        times.append(np.full_like(size, _BIG))
        busbws.append(busbw)
    stacked = np.stack(times)
    choice = np.argmin(stacked, axis=0)
    time = np.take_along_axis(stacked, choice[None], axis=0)[0]
    chosen_busbw = np.take_along_axis(np.stack(busbws), choice[None], axis=0)[0]
    trivial = (n <= 1) | (size <= 0)
    return (
        np.where(trivial, 0.0, time),
        np.where(trivial, NONE, choice),
        np.where(trivial, 0.0, chosen_busbw),
    )


def _send_recv(size, n, local, topology):
    """Point-to-point between neighbours (pipeline stages, ring attention). `local` > 1 means
    both ends sit in one NVLink domain."""
    up = topology.scale_up
    same_domain = local >= 2
    inter = scale_out_busbw_per_gpu(np.full_like(size, 2.0), topology)
    busbw = np.where(same_domain, up.ring_busbw_gb_per_s, inter)
    latency = BASE_LATENCY_US["ring"] * 1e-6 + np.where(
        same_domain, _hop_s(up.link, "ring"), _hop_s("network", "ring")
    )
    time = _transfer_s(latency, size, busbw)
    trivial = size <= 0
    return np.where(trivial, 0.0, time), np.where(trivial, NONE, DIRECT), busbw


def _all_to_all(size, n, local, topology):
    """Each rank sends size/n to every other rank. Inside a domain through NVSwitch; the share
    bound for other domains leaves through the rank's NIC (maintainers: all-to-all is limited
    to one NIC's bandwidth, reference C06)."""
    up = topology.scale_up
    domains = domains_spanned(n, local)
    intra_bytes = size * (local - 1.0) / n
    inter_bytes = size * (n - local) / n
    nic = scale_out_busbw_per_gpu(domains, topology)
    latency = BASE_LATENCY_US["ring"] * 1e-6 + (local - 1.0) * _hop_s(up.link, "ring")
    latency = latency + np.where(domains > 1, _hop_s("network", "ring"), 0.0)
    intra = intra_bytes / (up.ring_busbw_gb_per_s * 1e9)
    inter = inter_bytes / (np.maximum(nic, 1e-9) * 1e9)
    bus_bytes = intra_bytes + inter_bytes
    time = (
        latency
        + np.maximum(intra, inter)
        + ramp_s(bus_bytes, bus_bytes / np.maximum(np.maximum(intra, inter), 1e-12))
    )
    busbw = bus_bytes / np.maximum(time, 1e-12) / 1e9
    trivial = (n <= 1) | (size <= 0)
    return np.where(trivial, 0.0, time), np.where(trivial, NONE, DIRECT), busbw
