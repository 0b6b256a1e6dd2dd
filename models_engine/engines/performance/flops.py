"""FLOP counts. The engine's MFU convention: 6 x N_active per token (forward + backward of
every weight a token multiplies, the output head included, the embedding lookup not) plus
causal attention 6 x s x (heads x head_dim) per token per layer (QK^T and AV over s/2 keys
on average, s a packed document's length under sequence packing, forward + backward; for
MLA head_dim is the mean of the query/key and value head dims); no recompute. HFU adds the
recomputed work."""

from models_engine.engines.performance.fine_tuning import (
    FULL,
    Tuning,
    adapter_params_per_layer,
)

MFU_CONVENTION = (
    "MFU = (6 x N_active + 6 x s x heads x head_dim x layers) x tokens / (time x GPUs x peak): "
    "N_active = weights a token multiplies incl. the output head, no embedding lookup; "
    "head_dim = mean of the query/key and value head dims (they differ under MLA); causal "
    "attention (half the s x s scores); no recompute; peak = dense tensor TFLOP/s of the run's "
    "precision (fp8, mxfp8 and nvfp4 runs use the FP8 peak: NVFP4 puts only the MLP GEMMs "
    "on the FP4 path). HFU adds recomputed forward work (full: the whole "
    "layer forward; selective: the attention core). Under sequence packing "
    "(workload.packed_document_tokens) s is the packed document's length: each document "
    "attends only within itself. Partial fine-tuning (LoRA, frozen layers) "
    "counts only the gradients the run needs plus the LoRA adapters."
)


def attention_flops_per_token(shape) -> float:
    """Causal attention core, forward + backward, all layers: 12 x keys per query x width
    per layer, which is 6 x s x width with causal s / 2 keys; sliding-window layers count
    the keys inside their window (shapes.attention_keys_per_query)."""
    keys = shape.attention_keys_per_query if shape.window else shape.attention_span / 2.0
    return 12.0 * keys * shape.score_width * shape.layers


def model_flops_per_token(shape, tuning: Tuning = FULL) -> float:
    """Pretraining / full fine-tuning: 6 x N_active + causal attention. Partial fine-tuning
    (fine_tuning.py) counts what the run needs: the forward (2 x N_active), data gradients
    (2 x N) where a layer below still trains, weight gradients (2 x N) of the trained weights,
    the attention backward of the training layers and, for LoRA, the adapters in full
    (6 x adapter weights)."""
    if tuning.is_full:
        return 6.0 * shape.active_params_per_token() + attention_flops_per_token(shape)
    head = shape.vocab * shape.hidden
    layers = shape.active_params_per_token() - head
    attention = attention_flops_per_token(shape)
    head_weight_grad = 0.0 if tuning.adapters else 2.0 * head
    adapters = 6.0 * shape.layers * adapter_params_per_layer(shape, tuning)
    return (
        2.0 * (layers + head)
        + 2.0 * layers * (tuning.backward_share + tuning.weight_grad_share)
        + 2.0 * head
        + head_weight_grad
        + attention / 3.0
        + attention * 2.0 / 3.0 * tuning.backward_share
        + adapters
    )


def recompute_flops_per_token(
    shape, recompute: str, selective: str = "attention_core", full_share: float = 1.0
) -> float:
    """Extra forward work recomputed in the backward pass; `selective` is what the stack's
    selective recomputation re-runs (SoftwareStack.selective_recompute); `full_share` the
    share of layers full recomputation covers."""
    attention_forward = attention_flops_per_token(shape) / 3.0
    if recompute == "full":
        layer_weights = shape.active_params_per_token() - shape.vocab * shape.hidden
        return full_share * (2.0 * layer_weights + attention_forward)
    if recompute == "selective" and selective == "alternate_matmuls":
        dense = shape.layers - shape.moe_layers
        recomputed = dense * recomputed_matmul_share(shape, moe=False) * layer_matmul_weights(
            shape, moe=False
        ) + shape.moe_layers * recomputed_matmul_share(shape, moe=True) * layer_matmul_weights(
            shape, moe=True
        )
        return 2.0 * recomputed
    if recompute == "selective":
        return attention_forward
    return 0.0


def _matmul_weights(shape, moe: bool) -> list[float]:
    """Weights of one layer's plain matmuls in forward order: q, k, v (MLA: its down and up
    projections), o, then the MLP's (gate, up, down or up, down). An MoE layer's experts run
    as grouped GEMMs, not counted."""
    attention = [float(p.params) for p in shape.attention.projections()]
    return attention if moe else attention + [shape.hidden * shape.ffn] * shape.mlp_matrices


def layer_matmul_weights(shape, moe: bool) -> float:
    return float(sum(_matmul_weights(shape, moe)))


def recomputed_matmul_share(shape, moe: bool) -> float:
    """Share of a layer's matmul weights (= FLOPs, all see the same tokens) that torchtitan's
    op-level selective checkpointing recomputes: every second matmul in forward order (k, o
    and the MLP's second: up for a gated MLP, down otherwise)."""
    weights = _matmul_weights(shape, moe)
    return sum(weights[1::2]) / sum(weights)


def _matmul_outputs(shape) -> list[tuple[float, bool]]:
    """(output width, split over TP ranks) of a dense layer's matmuls in forward order:
    column-parallel outputs are split, row-parallel ones (attention output projection, MLP
    down projection) and MLA's unsharded down-projections are whole on every rank."""
    attention = [(float(p.out_width), p.sharded) for p in shape.attention.input_projections()]
    attention.append((float(shape.hidden), False))
    mlp = [(float(shape.ffn), True)] * (shape.mlp_matrices - 1) + [(float(shape.hidden), False)]
    return attention + mlp


def alternate_matmul_stored_per_hidden(shape) -> tuple[float, float]:
    """(TP-split, whole) bytes per token over hidden that torchtitan's op-level selective
    checkpointing keeps for one dense layer (recomputed_matmul_share: it saves the outputs of
    every matmul but every second one and of the attention kernel, and recomputes the rest):
    the layer input, the kept matmul outputs, the attention output with its fp32 log-sum-exp,
    all BF16. Korthikanti's selective keeps every activation but the attention core's; this
    keeps about half of that."""
    kept = _matmul_outputs(shape)[0::2]
    split = sum(width for width, sharded in kept if sharded)
    whole = sum(width for width, sharded in kept if not sharded)
    attention_out = shape.attention.output_width + 2.0 * shape.heads  # + fp32 LSE per head
    h = float(shape.hidden)
    return 2.0 * (split + attention_out) / h, 2.0 * (h + whole) / h


def selective_stored(shape, selective: str):
    """activation_bytes_per_layer's `selective_stored` for a stack whose selective
    recomputation is `selective` (SoftwareStack.selective_recompute): torchtitan's op-level
    policy on a dense model; None (Korthikanti's) otherwise, MoE models included (their
    grouped expert GEMMs are not counted as matmuls there: ASSUMPTION, Korthikanti kept)."""
    if selective != "alternate_matmuls" or shape.moe_layers:
        return None
    return alternate_matmul_stored_per_hidden(shape)
