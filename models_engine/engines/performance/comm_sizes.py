"""Bytes each parallel dimension moves, per collective, in nccl-tests size convention. One
place for the formulas so the step model and the per-collective report agree."""

import numpy as np

ACTIVATION_BYTES = 2  # activations and their gradients travel in bf16 / fp16
PARAM_GATHER_BYTES = 2  # ZeRO parameter all-gathers move bf16 weights


def tokens_per_microbatch(shape, cand):
    """Tokens one GPU holds per micro-batch (context parallelism splits the sequence)."""
    return shape.seq_len * cand.mbs / cand.cp


def tp_activation_bytes(shape, cand):
    """One TP all-reduce / all-gather output / reduce-scatter input: a full activation."""
    return tokens_per_microbatch(shape, cand) * shape.hidden * ACTIVATION_BYTES


def logits_gather_bytes(shape, cand):
    """The whole bf16 logits of one micro-batch, gathered over the TP ranks for the loss where
    the stack keeps the vocabulary replicated (software_stack.embedding_tp replicated:
    KempnerForge's output head, ColwiseParallel with output_layouts Replicate)."""
    return tokens_per_microbatch(shape, cand) * shape.vocab * ACTIVATION_BYTES


def pp_activation_bytes(shape, cand):
    """Activation one GPU sends to the next stage: Megatron's scatter/gather optimisation
    (Narayanan et al. 2021 section 4.1) sends 1/tp of it per TP rank and re-gathers it over
    NVLink on the receiving side."""
    return tp_activation_bytes(shape, cand) / cand.tp


def stride_local(stride, group, domain_gpus):
    """Members of a group of `group` ranks at rank stride `stride` that share one NVLink
    domain (Megatron orders ranks tp, cp, ep, dp, pp)."""
    return np.maximum(np.minimum(group, domain_gpus // np.maximum(stride, 1)), 1)


def ring_peers_local(group_span, domain_gpus):
    """2 (a neighbour pair on NVLink) where every hop of a lockstep ring (context-parallel
    K/V ring, pipeline send / receive) stays in one scale-up domain, else 1 (the network):
    the ring spans `group_span` consecutive ranks (tp x cp for CP; its stride x 2 for a
    pipeline pair), and one hop between domains sets every step's pace."""
    return np.where(np.asarray(group_span) <= domain_gpus, 2, 1)


def cp_kv_bytes(shape, cand):
    """One context-parallel ring step: the K/V chunk a rank passes on (the backward returns
    twice this, K/V and their gradients); attention_shape.AttentionShape.kv_exchange_width."""
    return (
        tokens_per_microbatch(shape, cand)
        * shape.attention.kv_exchange_width(cand.tp)
        * (ACTIVATION_BYTES)
    )


def ep_dispatched_tokens(shape, cand):
    """Tokens one GPU routes per micro-batch: with sequence parallelism, or with the expert
    group spanning the TP ranks (expert_tp < tp), each TP rank dispatches its 1/tp share;
    otherwise every TP rank holds (and dispatches) the whole micro-batch."""
    split = cand.sp | (cand.etp < cand.tp)
    return tokens_per_microbatch(shape, cand) / np.where(split, cand.tp, 1.0)


def ep_dispatch_bytes(shape, cand, imbalance=1.0):
    """One all-to-all (dispatch or combine) of the EP group: top_k copies of each dispatched
    token, hidden x 2 bytes each; `imbalance`: the busiest rank's load over the mean."""
    copies = imbalance * ep_dispatched_tokens(shape, cand) * shape.top_k
    return copies * shape.hidden * ACTIVATION_BYTES


def ep_local_peers(cand, domain_gpus):
    """EP peers of a GPU inside its NVLink domain: Megatron-Core orders the expert grid
    expert-TP fastest, then EP, so EP ranks stride expert_tp (and context parallelism)."""
    return np.minimum(cand.ep, np.maximum(domain_gpus // (cand.etp * cand.cp), 1))


def groups_per_token(shape, groups):
    """Distinct groups a token's top_k experts fall in, the experts split evenly and in id
    order over `groups` groups (EP ranks or nodes). Random choices (learned or force-balanced
    routing, taken as uniform): top_k distinct experts out of E miss a given group with
    probability C(E - E/groups, top_k) / C(E, top_k). Round-robin routing (consecutive expert
    ids, moe.routing "round_robin"): the mean over the token's starting expert of the groups
    its top_k adjacent ids span."""
    groups = np.maximum(np.asarray(groups, dtype=float), 1.0)
    if shape.consecutive_experts:
        return _groups_spanned(shape.experts, shape.top_k, groups)
    return _random_groups(float(shape.experts), shape.top_k, groups)


def _random_groups(experts, top_k: int, groups):
    """groups x (1 - C(E - E/groups, top_k) / C(E, top_k)), E may be an array."""
    per_group = experts / groups
    miss = np.ones_like(np.asarray(groups * per_group, dtype=float))
    for drawn in range(int(top_k)):
        miss = miss * np.clip((experts - per_group - drawn) / (experts - drawn), 0.0, 1.0)
    return groups * (1.0 - miss)


def _groups_spanned(experts: int, top_k: int, groups: np.ndarray) -> np.ndarray:
    """Mean groups spanned by ids s ... s + top_k - 1, s = i x top_k mod E over tokens i
    (the starts repeat every E / gcd(E, top_k) tokens)."""
    starts = np.arange(0, experts * top_k, top_k) % experts
    sizes, inverse = np.unique(groups, return_inverse=True)
    spans = np.empty_like(sizes)
    for index, size in enumerate(sizes):
        per_group = max(experts / size, 1.0)
        first = np.floor(starts / per_group)
        last = np.floor((starts + top_k - 1) / per_group)
        spans[index] = float(np.mean(np.minimum(last - first + 1.0, size)))
    return spans[inverse].reshape(groups.shape)


def ep_network_copies(shape, cand, local):
    """Copies of one dispatched token that cross the network between nodes (EP groups that
    span nodes of `local` EP peers each). NCCL's all-to-all sends one per routed expert on
    another node: top_k x (ep - local) / ep. DeepEP sends one per destination node and
    forwards it to the experts' GPUs over NVLink (DeepSeek-V3 report, arXiv 2412.19437
    section 3.2.2; DeepEP's internode kernels): a token reaches the nodes its experts lie on
    (groups_per_token over the n nodes, or over the model's node limit r with the experts of
    those r nodes), of which a share (n - 1) / n is remote."""
    nodes = np.maximum(cand.ep / np.maximum(local, 1), 1.0)
    per_expert = shape.top_k * (cand.ep - local) / np.maximum(cand.ep, 1)
    limit = shape.max_nodes_per_token
    if limit and not shape.consecutive_experts:
        reach = np.minimum(nodes, limit)
        distinct = _random_groups(shape.experts * reach / nodes, shape.top_k, reach)
    else:
        distinct = groups_per_token(shape, nodes)
    per_node = np.minimum(distinct * (nodes - 1.0) / nodes, per_expert)
    return per_expert, per_node


def ep_rank_copies(shape, cand):
    """Copies of one dispatched token sent to other GPUs of its EP group when all of them
    share one NVLink domain. NCCL's all-to-all: one per routed expert on another GPU,
    top_k x (ep - 1) / ep. DeepEP's intranode kernels send a token once to each GPU that
    holds any of its experts (get_dispatch_layout's is_token_in_rank, one row per token and
    rank) and combine one partial sum per GPU back: groups_per_token over the ep ranks, of
    which (ep - 1) / ep are another GPU."""
    ep = np.maximum(np.asarray(cand.ep, dtype=float), 1.0)
    remote = (ep - 1.0) / ep
    return shape.top_k * remote, groups_per_token(shape, ep) * remote


def ep_dispatch_scale(shape, cand, local, dispatcher: str):
    """What a deduplicating dispatcher leaves of the all-to-all's bytes. Across nodes: the
    network copies per node over those per expert; the all-to-all time is set by its network
    part once it spans nodes (NVLink is ~8x faster per GPU), so scaling the whole exchange
    stands for scaling that part. Inside one NVLink domain: the copies per GPU over those per
    expert. NCCL's all-to-all (any other dispatcher) deduplicates nothing."""
    if dispatcher != "deepep":
        return np.ones_like(np.asarray(cand.ep, dtype=float))
    per_expert, per_node = ep_network_copies(shape, cand, local)
    across = np.where(per_expert > 0, per_node / np.maximum(per_expert, 1e-12), 1.0)
    rank_expert, per_rank = ep_rank_copies(shape, cand)
    within = np.where(rank_expert > 0, per_rank / np.maximum(rank_expert, 1e-12), 1.0)
    return np.where(cand.ep > local, across, within)


def ep_exchange_bytes(shape, cand, imbalance, local, dispatcher: str):
    """One dispatch (or combine) exchange as the step model and the collective report cost
    it: the all-to-all's bytes, scaled by what the stack's dispatcher deduplicates."""
    scale = ep_dispatch_scale(shape, cand, local, dispatcher)
    return ep_dispatch_bytes(shape, cand, imbalance) * scale
