"""The attention block's geometry: which projections it runs, with what widths, and what it
stores and exchanges per token. The one owner of these numbers for the performance, memory
and serving models, for multi-head / grouped-query attention and for multi-head latent
attention (MLA, DeepSeek-V2 arXiv 2405.04434 section 2.1; DeepSeek-V3 arXiv 2412.19437
section 2.1.1).

MLA under tensor parallelism follows Megatron-Core's MLASelfAttention: the two down
projections (hidden -> query latent, hidden -> key/value latent + shared RoPE key) are
replicated on every TP rank; the up projections (latent -> per-head query, latent -> per-head
key and value) are column-parallel; the output projection is row-parallel as usual.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models_engine.engines.performance.comm_sizes import ACTIVATION_BYTES

# Korthikanti et al. 2022, section 4.1: stored attention-block activations per token, bytes
# over hidden, besides the s x s scores: TP-sharded Q and K 4, V 2, output-projection input 2
# (= 8); replicated QKV input 2 and dropout mask 1 (= 3). Together the 11 of their 34.
KORTHIKANTI_SHARDED_ATTENTION = 8.0
KORTHIKANTI_REPLICATED_ATTENTION = 3.0


@dataclass(frozen=True)
class Projection:
    """One linear layer y[tokens x out] = x[tokens x in]; `sharded`: split over TP ranks
    (column- or row-parallel) rather than replicated."""

    out_width: int
    in_width: int
    sharded: bool = True

    @property
    def params(self) -> int:
        return self.out_width * self.in_width


@dataclass(frozen=True)
class AttentionShape:
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int  # MLA: the no-RoPE part of a query / key head
    # Multi-head latent attention (kv_lora == 0: none)
    q_lora: int = 0  # 0 with MLA: queries projected straight from the hidden state
    kv_lora: int = 0
    rope_dim: int = 0
    v_dim: int = 0  # 0: head_dim

    @property
    def mla(self) -> bool:
        return self.kv_lora > 0

    @property
    def qk_head_dim(self) -> int:
        return self.head_dim + self.rope_dim if self.mla else self.head_dim

    @property
    def v_head_dim(self) -> int:
        return self.v_dim or self.head_dim

    @property
    def output_width(self) -> int:
        """Input width of the output projection: heads x value dim."""
        return self.heads * self.v_head_dim

    @property
    def score_width(self) -> float:
        """heads x the mean of the query/key and value head dims: the attention core's FLOPs
        are 4 x queries x keys x score_width forward (QK^T over qk dims, AV over v dims)."""
        return self.heads * (self.qk_head_dim + self.v_head_dim) / 2.0

    @property
    def core_head_dim(self) -> float:
        """Head dim the attention kernel runs at (the FLOP-weighted mean for MLA's 192 / 128)."""
        return self.score_width / self.heads

    def input_projections(self) -> tuple[Projection, ...]:
        """Projections from the layer input to queries, keys and values, in forward order."""
        h = self.hidden
        if not self.mla:
            kv = self.kv_heads * self.head_dim
            return (
                Projection(self.heads * self.head_dim, h),
                Projection(kv, h),
                Projection(kv, h),
            )
        q_out = self.heads * self.qk_head_dim
        kv_up = self.heads * (self.head_dim + self.v_head_dim)
        queries = (
            (Projection(self.q_lora, h, sharded=False), Projection(q_out, self.q_lora))
            if self.q_lora
            else (Projection(q_out, h),)
        )
        return (
            *queries,
            Projection(self.kv_lora + self.rope_dim, h, sharded=False),
            Projection(kv_up, self.kv_lora),
        )

    def input_gemms(self) -> tuple[Projection, ...]:
        """The input projections as kernels run them: multi-head / grouped-query attention
        fuses Q, K and V into one GEMM (Megatron's linear_qkv); MLA runs each separately."""
        if self.mla:
            return self.input_projections()
        return (Projection(int(self.input_projection_width(1)), self.hidden),)

    def output_projection(self) -> Projection:
        return Projection(self.hidden, self.output_width)

    def projections(self) -> tuple[Projection, ...]:
        return (*self.input_projections(), self.output_projection())

    def params(self) -> float:
        """Attention weights of one layer (MLA: plus the two latent RMSNorm weights)."""
        norms = self.q_lora + self.kv_lora if self.mla else 0
        return float(sum(p.params for p in self.projections()) + norms)

    def input_projection_width(self, tp) -> float:
        """Output columns of the input projections on one TP rank (their total width)."""
        return sum(p.out_width / (tp if p.sharded else 1) for p in self.input_projections())

    def kv_exchange_width(self, tp):
        """Key + value elements per token a context-parallel ring passes on (one TP rank):
        GQA's K/V heads (a KV head is replicated below tp), MLA's up-projected per-head keys
        and values (Megatron-Core's MLA runs ring attention on them)."""
        if self.mla:
            return self.heads / tp * (self.qk_head_dim + self.v_head_dim)
        return 2.0 * _at_least_one(self.kv_heads / tp) * self.head_dim

    def kv_cache_width(self, tp):
        """Elements per token and layer an inference KV cache holds on one TP rank: K and V
        of the KV heads, or MLA's key/value latent plus the shared RoPE key (with the up
        projections absorbed into the query and output, DeepSeek-V2 section 2.1.3),
        replicated on every TP rank."""
        if self.mla:
            return float(self.kv_lora + self.rope_dim)
        return 2.0 * _at_least_one(self.kv_heads / tp) * self.head_dim

    def rope_width(self, tp) -> float:
        """Elements per token the rotary embedding rotates on one TP rank."""
        if self.mla:
            return self.heads / tp * self.rope_dim + self.rope_dim
        return (self.heads + self.kv_heads) * self.head_dim / tp

    def stored_sharded_bytes_per_hidden(self) -> float:
        """Attention activations kept for backward that TP shards (per-head tensors), bytes
        per token over hidden, no s x s scores. Multi-head / grouped-query: Korthikanti's 8
        (Q and K 4, V 2, output-projection input 2; K and V at full width, so GQA is not
        credited: conservative). MLA from its widths: Q, K, V and the attention output."""
        if not self.mla:
            return KORTHIKANTI_SHARDED_ATTENTION
        per_head = 2 * self.qk_head_dim + 2 * self.v_head_dim
        return ACTIVATION_BYTES * self.heads * per_head / self.hidden

    def stored_replicated_bytes_per_hidden(self) -> float:
        """Attention activations every TP rank keeps whole (without sequence parallelism):
        Korthikanti's 3 (projection input 2, dropout mask 1), plus MLA's latents (the down
        projections are replicated, so are their outputs)."""
        latents = self.q_lora + self.kv_lora + self.rope_dim if self.mla else 0
        return KORTHIKANTI_REPLICATED_ATTENTION + ACTIVATION_BYTES * latents / self.hidden


def _at_least_one(value):
    return np.maximum(value, 1.0)


def attention_shape(workload) -> AttentionShape:
    """From the spec's workload section."""
    mla = workload.mla
    head_dim = workload.head_dim or workload.hidden_size // workload.attention_heads
    if mla is None:
        return AttentionShape(
            hidden=workload.hidden_size,
            heads=workload.attention_heads,
            kv_heads=workload.kv_heads_effective,
            head_dim=head_dim,
        )
    return AttentionShape(
        hidden=workload.hidden_size,
        heads=workload.attention_heads,
        kv_heads=workload.attention_heads,
        head_dim=head_dim,
        q_lora=mla.q_lora_rank or 0,
        kv_lora=mla.kv_lora_rank,
        rope_dim=mla.qk_rope_head_dim,
        v_dim=mla.v_head_dim or 0,
    )
