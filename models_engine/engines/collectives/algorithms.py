"""Time of one collective on the hierarchy, vectorised over numpy arrays of sizes and group
shapes. Each algorithm's time = latency + bus_bytes / busbw + size ramp, NCCL-style, and
'auto' picks the fastest, as NCCL's tuner does.

A group is described by `ranks` (its size) and `ranks_per_domain` (how many of its members
share one NVLink domain; Megatron orders ranks tp -> cp -> dp -> pp, so a group of stride k
has domain_gpus // k members per domain).

Across NVLink domains a collective leaves each domain through the NICs of the GPUs on its
boundary, never through a whole domain's NICs: NCCL maps each ring / tree channel to one NIC
rail, and the rails a domain offers one group are the NICs of that group's members in one node
(tray): min(members per domain, GPUs per node) x each GPU's NIC share (NICs per node / GPUs per
node). Algorithms across domains, all-reduce (NCCL tuning.cc names in brackets):
- ring [RING]: one flat ring, bounded by the NVLink ring and the boundary NICs;
- tree [TREE]: a chain inside each domain, a double binary tree across domains;
- NVLS tree [NVLS_TREE]: NVLS reduce-scatter / all-gather inside each domain, a tree across;
- CollNet [COLLNET_CHAIN] and NVLS + SHARP [NVLS]: as tree / NVLS tree, but the scale-out
  switches reduce (InfiniBand SHARP), so more than two domains cost no extra NIC traffic.
The hierarchical ones pipeline their intra- and inter-domain phases, so the slower phase sets
the bandwidth.
"""

import numpy as np

from models_engine.engines.collectives.constants import (
    BASE_LATENCY_US,
    CHAIN_ALGBW_PER_LINK_BW,
    HOP_LATENCY_US,
    PIPELINE_FILL_S,
    SMALL_MESSAGE_BW_FRACTION,
    TREE_INTER_DOMAIN_SHARE_MANY,
)
from models_engine.engines.collectives.conventions import bus_factor, ring_steps

ALGORITHMS = ("ring", "tree", "nvls", "direct", "none", "nvls_tree", "collnet", "nvls_sharp")
RING, TREE, NVLS, DIRECT, NONE, NVLS_TREE, COLLNET, NVLS_SHARP = range(len(ALGORITHMS))
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


def boundary_busbw_gb_per_s(ranks_per_domain, domains, topology):
    """What one domain's boundary NICs carry for a group with `ranks_per_domain` members in it:
    the NICs of the members in one node (tray), one rail each (module docstring)."""
    rails = np.minimum(ranks_per_domain, max(topology.gpus_per_node, 1))
    return rails * scale_out_busbw_per_gpu(domains, topology)


def inter_domain_busbw_gb_per_s(ranks_per_domain, domains, topology):
    """Per-rank busbw of a flat ring that leaves the NVLink domain: bounded by the boundary NICs
    and never faster than the NVLink ring inside the domain."""
    boundary = boundary_busbw_gb_per_s(ranks_per_domain, domains, topology)
    return np.minimum(topology.scale_up.ring_busbw_for(ranks_per_domain), boundary)


def inter_domain_share(domains, in_network: bool):
    """Fraction of the boundary NIC bandwidth a tree-shaped all-reduce turns into algbw: 1 for
    two domains or with switch reduction (SHARP), 1/2 for a double binary tree (constants)."""
    if in_network:
        return np.ones_like(domains)
    return np.where(domains <= 2, 1.0, TREE_INTER_DOMAIN_SHARE_MANY)


def _hop_s(link: str, algorithm: str) -> float:
    return HOP_LATENCY_US[link][algorithm] * 1e-6


def _nvls_algbw(local, nvls_algbw):
    """NVLS all-reduce algbw inside a domain for a group of `local` members; a lone member has
    no intra-domain phase."""
    return np.where(local > 1, nvls_algbw, _BIG)


def _chain_algbw(local, topology):
    chain = CHAIN_ALGBW_PER_LINK_BW * topology.scale_up.ring_busbw_for(local)
    return np.where(local > 1, chain, _BIG)


class _Candidates:
    """Time and busbw of each algorithm considered for one call."""

    def __init__(self, size):
        self.times = {}
        self.busbws = {}
        self.like = np.zeros_like(size)

    def add(self, index, time, busbw, allowed=True):
        self.times[index] = np.where(allowed, time, _BIG) + self.like
        self.busbws[index] = np.asarray(busbw, dtype=float) + self.like

    def fastest(self, only: int | None = None):
        """The fastest candidate, or the `only` one (as NCCL_ALGO forces it)."""
        if only is not None:
            if only not in self.times:
                raise ValueError(f"algorithm {ALGORITHMS[only]!r} does not run this collective")
            self.times = {only: self.times[only]}
        indices = np.array(sorted(self.times))
        stacked = np.stack([self.times[i] for i in indices])
        best = np.argmin(stacked, axis=0)
        time = np.take_along_axis(stacked, best[None], axis=0)[0]
        busbws = np.stack([self.busbws[i] for i in indices])
        return time, indices[best], np.take_along_axis(busbws, best[None], axis=0)[0]


def collective_time_s(operation, size_bytes, ranks, ranks_per_domain, topology, algorithm=None):
    """(time_s, algorithm index, busbw_gb_per_s of the chosen algorithm) for each element.

    size_bytes follows nccl-tests (full buffer; all-gather output; reduce-scatter input);
    `algorithm` (a name in ALGORITHMS) forces one, as NCCL_ALGO does; None = the fastest."""
    size = np.asarray(size_bytes, dtype=float)
    n = np.maximum(np.asarray(ranks, dtype=float), 1.0)
    local = np.minimum(np.maximum(np.asarray(ranks_per_domain, dtype=float), 1.0), n)
    size, n, local = np.broadcast_arrays(size, n, local)
    if operation == "send_recv":
        return _send_recv(size, n, local, topology)
    if operation == "all_to_all":
        return _all_to_all(size, n, local, topology)
    domains = domains_spanned(n, local)
    candidates = _Candidates(size)
    _add_ring(candidates, operation, size, n, local, domains, topology)
    if operation == "all_reduce":
        _add_all_reduce_hierarchies(candidates, size, n, local, domains, topology)
    only = None if algorithm is None else ALGORITHMS.index(algorithm)
    time, choice, busbw = candidates.fastest(only)
    trivial = (n <= 1) | (size <= 0)
    return (
        np.where(trivial, 0.0, time),
        np.where(trivial, NONE, choice),
        np.where(trivial, 0.0, busbw),
    )


def _add_ring(candidates, operation, size, n, local, domains, topology):
    up = topology.scale_up
    single = domains <= 1
    busbw = np.where(
        single, up.ring_busbw_for(local), inter_domain_busbw_gb_per_s(local, domains, topology)
    )
    steps = ring_steps(operation, n)
    inter_steps = np.where(single, 0.0, ring_steps(operation, domains))
    latency = (
        BASE_LATENCY_US["ring"] * 1e-6
        + (steps - inter_steps) * _hop_s(up.link, "ring")
        + inter_steps * _hop_s("network", "ring")
    )
    bus_bytes = size * bus_factor(operation, n)
    candidates.add(RING, _transfer_s(latency, bus_bytes, busbw), busbw)


def _add_all_reduce_hierarchies(candidates, size, n, local, domains, topology):
    """Tree (single- and multi-domain), NVLS inside one domain, NVLS tree across domains and,
    where the scale-out switches reduce (SHARP), CollNet and NVLS + SHARP."""
    shape = _Shape(size, n, local, domains, topology)
    _add_tree(candidates, shape, topology)
    if topology.scale_up.nvls_algbw_gb_per_s:
        _add_nvls(candidates, shape, topology)
    if topology.scale_out.in_network_reduction:
        _add_collnet(candidates, shape, topology)


class _Shape:
    """What every all-reduce candidate needs about the group."""

    def __init__(self, size, n, local, domains, topology):
        self.n, self.local, self.domains = n, local, domains
        self.factor = bus_factor("all_reduce", n)
        self.bus_bytes = size * self.factor
        self.single = domains <= 1
        self.multi = ~self.single & (local > 1)
        self.boundary = boundary_busbw_gb_per_s(local, domains, topology)
        self.log_domains = np.log2(np.maximum(domains, 1.0))


def _add_tree(candidates, shape, topology):
    up = topology.scale_up
    across = np.minimum(
        _chain_algbw(shape.local, topology),
        shape.boundary * inter_domain_share(shape.domains, False),
    )
    busbw = np.where(shape.single, up.ring_busbw_for(shape.local), across * shape.factor)
    latency = BASE_LATENCY_US["tree"] * 1e-6 + 2.0 * (
        (shape.local - 1.0) * _hop_s(up.link, "tree")
        + shape.log_domains * _hop_s("network", "tree")
    )
    candidates.add(TREE, _transfer_s(latency, shape.bus_bytes, busbw), busbw)


def _add_nvls(candidates, shape, topology):
    """NVLS inside one domain (constant algbw, so busbw grows with the group: C02), and NVLS
    reduce-scatter / all-gather inside each domain around a tree across domains."""
    algbw = topology.scale_up.nvls_algbw_gb_per_s
    latency = BASE_LATENCY_US["nvls"] * 1e-6 + _hop_s("nvlink", "nvls")
    inside = algbw * shape.factor
    time = _transfer_s(latency, shape.bus_bytes, inside)
    candidates.add(NVLS, time, inside, allowed=shape.single & (shape.n > 1))
    intra = _nvls_algbw(shape.local, algbw)
    share = inter_domain_share(shape.domains, False)
    tree = np.minimum(intra, shape.boundary * share) * shape.factor
    tree_latency = latency + 2.0 * shape.log_domains * _hop_s("network", "nvls_tree")
    time = _transfer_s(tree_latency, shape.bus_bytes, tree)
    candidates.add(NVLS_TREE, time, tree, allowed=shape.multi)
    if topology.scale_out.in_network_reduction:
        sharp = np.minimum(intra, shape.boundary) * shape.factor
        time = _transfer_s(latency + _hop_s("network", "nvls_sharp"), shape.bus_bytes, sharp)
        candidates.add(NVLS_SHARP, time, sharp, allowed=shape.multi)


def _add_collnet(candidates, shape, topology):
    """CollNet chain: a chain to the NIC inside each domain, SHARP reduces across domains."""
    up = topology.scale_up
    busbw = np.minimum(_chain_algbw(shape.local, topology), shape.boundary) * shape.factor
    latency = 2.0 * (shape.local - 1.0) * _hop_s(up.link, "collnet") + _hop_s("network", "collnet")
    time = _transfer_s(latency, shape.bus_bytes, busbw)
    candidates.add(COLLNET, time, busbw, allowed=~shape.single)


def _send_recv(size, n, local, topology):
    """Point-to-point between neighbours (pipeline stages, ring attention). `local` > 1 means
    both ends sit in one NVLink domain."""
    up = topology.scale_up
    same_domain = local >= 2
    inter = scale_out_busbw_per_gpu(np.full_like(size, 2.0), topology)
    busbw = np.where(same_domain, up.ring_busbw_for(2.0), inter)
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
    intra = intra_bytes / (up.ring_busbw_for(local) * 1e9)
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
