"""The transformer's shape as plain numbers, taken once from the spec's workload."""

from dataclasses import dataclass

import numpy as np

from models_engine.engines.performance.attention_shape import AttentionShape, attention_shape


@dataclass(frozen=True)
class ModelShape:
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    mlp_matrices: int  # 3 for a gated MLP (SwiGLU), 2 otherwise
    vocab: int
    seq_len: int
    global_batch: int
    tied_embeddings: bool
    # Mixture of experts (experts == 0: dense model)
    experts: int = 0
    top_k: int = 0
    expert_ffn: int = 0
    shared_experts: int = 0
    moe_layers: int = 0
    first_dense_layers: int = 0
    mtp_modules: int = 0  # multi-token prediction modules (on the last stage)
    force_balanced: bool = False  # every expert gets the mean token count (no busiest rank)
    consecutive_experts: bool = False  # round-robin routing: a token's experts are adjacent ids
    max_nodes_per_token: int = 0  # node-limited routing (0: no limit)
    # Sliding-window attention: window in tokens (0: none) and the share of layers using it
    window: int = 0
    window_share: float = 0.0
    sinks: bool = False  # learnable attention sinks (one extra logit per head)
    # Sequence packing: mean tokens per packed document, each attending only within itself
    # (0: one document per sequence)
    packed_document: int = 0
    # Projections, widths and stored activations of the attention block (MLA or not);
    # None: plain multi-head / grouped-query attention from the fields above.
    attention_geometry: AttentionShape | None = None

    @property
    def attention(self) -> AttentionShape:
        if self.attention_geometry is not None:
            return self.attention_geometry
        return AttentionShape(self.hidden, self.heads, self.kv_heads, self.head_dim)

    @property
    def attention_span(self) -> int:
        """Tokens one causal attention runs over: the sequence, or a packed document."""
        if self.packed_document:
            return min(self.packed_document, self.seq_len)
        return self.seq_len

    @property
    def attention_keys_per_query(self) -> float:
        """Mean keys a query attends to, over queries and layers: causal (s + 1) / 2, or in
        a windowed layer min(i + 1, w) for query i, i.e. w - w (w - 1) / 2s for w <= s; s is
        the attention span (a packed document's length under sequence packing)."""
        s = float(self.attention_span)
        causal = (s + 1.0) / 2.0
        if not self.window or not self.window_share:
            return causal
        w = min(float(self.window), s)
        windowed = w - w * (w - 1.0) / (2.0 * s)
        return (1.0 - self.window_share) * causal + self.window_share * windowed

    @property
    def dense_layers(self) -> int:
        return self.layers - self.moe_layers

    def moe_layers_in(self, layers, *, first_stage):
        """MoE layers among `layers` consecutive layers (numpy-friendly): the leading dense
        layers sit on the first stage; after them MoE layers are spread evenly."""
        if self.moe_layers == 0:
            return np.zeros_like(np.asarray(layers, dtype=float))
        ratio = self.moe_layers / max(self.layers - self.first_dense_layers, 1)
        if first_stage:
            return np.maximum(np.asarray(layers, float) - self.first_dense_layers, 0.0) * ratio
        return np.asarray(layers, float) * ratio

    @property
    def attention_width(self) -> int:
        """Input width of the output projection, heads x value head dim (equals hidden for
        the usual head_dim = hidden / heads)."""
        return self.attention.output_width

    @property
    def score_width(self) -> float:
        """heads x mean query/key and value head dim: what the attention core's FLOPs scale
        with (attention_shape.AttentionShape.score_width)."""
        return self.attention.score_width

    @property
    def qkv_width(self) -> float:
        """Total output width of the projections to queries, keys and values."""
        return self.attention.input_projection_width(1)

    def attention_params(self) -> float:
        return self.attention.params()

    def dense_mlp_params(self) -> float:
        return self.mlp_matrices * self.hidden * self.ffn

    def expert_params(self) -> float:
        """One routed expert."""
        return self.mlp_matrices * self.hidden * self.expert_ffn

    def moe_active_mlp_params(self) -> float:
        """Per token: top_k routed + shared experts + the router."""
        experts = (self.top_k + self.shared_experts) * self.expert_params()
        return experts + self.hidden * self.experts

    def active_params_per_token(self) -> float:
        """Weights a token multiplies (no embedding lookup; the output head counted once)."""
        attention = self.layers * self.attention_params()
        mlp = self.dense_layers * self.dense_mlp_params()
        mlp += self.moe_layers * self.moe_active_mlp_params()
        return attention + mlp + self.vocab * self.hidden

    def dense_params_per_layer(self) -> float:
        """Weights of a layer that every TP rank shards (attention, dense MLP / shared experts)."""
        return self.attention_params() + 2 * self.hidden

    def moe_layer_dense_params(self) -> float:
        return self.dense_params_per_layer() + self.shared_experts * self.expert_params()

    def moe_layer_expert_params(self) -> float:
        return self.experts * self.expert_params() + self.hidden * self.experts


def count_moe_layers(workload) -> int:
    moe = workload.moe
    if moe is None:
        return 0
    return sum(
        1
        for index in range(moe.first_dense_layers, workload.layers)
        if (index - moe.first_dense_layers) % moe.moe_layer_frequency == 0
    )


def model_shape(workload) -> ModelShape:
    moe = workload.moe
    return ModelShape(
        layers=workload.layers,
        hidden=workload.hidden_size,
        heads=workload.attention_heads,
        kv_heads=workload.kv_heads_effective,
        head_dim=workload.head_dim or workload.hidden_size // workload.attention_heads,
        ffn=workload.ffn_hidden_size,
        mlp_matrices=3 if workload.gated_mlp else 2,
        vocab=workload.vocab_size,
        seq_len=workload.sequence_length,
        global_batch=workload.global_batch_sequences,
        tied_embeddings=workload.tied_embeddings,
        experts=moe.experts if moe else 0,
        top_k=moe.top_k if moe else 0,
        expert_ffn=moe.expert_ffn_hidden_size if moe else 0,
        shared_experts=moe.shared_experts if moe else 0,
        moe_layers=count_moe_layers(workload),
        first_dense_layers=moe.first_dense_layers if moe else 0,
        mtp_modules=moe.mtp_modules if moe else 0,
        force_balanced=bool(moe and moe.routing in ("force_balanced", "round_robin")),
        consecutive_experts=bool(moe and moe.routing == "round_robin"),
        max_nodes_per_token=(moe.max_nodes_per_token or 0) if moe else 0,
        window=workload.attention_sliding_window_tokens or 0,
        window_share=(
            workload.attention_sliding_window_layer_share
            if workload.attention_sliding_window_tokens
            else 0.0
        ),
        sinks=workload.attention_sinks,
        packed_document=workload.packed_document_tokens or 0,
        attention_geometry=attention_shape(workload),
    )
