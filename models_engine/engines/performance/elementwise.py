"""HBM traffic of a layer's memory-bound (element-wise) kernels, bytes per micro-batch on one
GPU. Counted op by op from what each kernel reads and writes in 16-bit precision.

Per hidden element of a token (x2 bytes each read or write):
  norm (LayerNorm / RMSNorm)   forward read + write = 4;  backward read x, dy, write dx = 6
  residual add                 forward read 2 + write 1 = 6 (+1 byte dropout mask);
                               backward sums two gradients = 6 (+ dropout backward 5)
Per FFN element:
  GeLU                         forward 4, backward 6 (read x, dy; write dx)
  SwiGLU (gate, up -> out)     forward 6 (read 2F, write F), backward 10 (read 2F + F, write 2F)
Per query + key element (modern stacks, rotary embeddings): forward 4, backward 4.
Per attention-output element, attention sinks rescaled after a FlexAttention kernel:
  forward 32, backward 65 (SINK_RESCALE_BYTES, measured).
FP8 (Transformer Engine): casts not fused into a norm or activation read 2 and write 1 byte:
  forward the attention output and the FFN activation; backward the output gradient of each
  of the four GEMMs (their transposes are written by the same kernel).
Norm and residual kernels run on tokens / tp with sequence parallelism, else on all tokens.
"""

import numpy as np

# Attention sinks applied after a FlexAttention kernel (NeMo AutoModel's gpt-oss:
# out * sigmoid(lse - sink) in fp32, then cast back to bf16), bytes per element of the attention
# output (forward, backward). MEASURED on an H200 as what the rescale adds to the compiled kernel
# (flex minus flex-no-sink, causal, 33.5 M output elements; tests/fixtures/gpu_microbench/
# h200-calibrate-flex-2026-11-27.json): forward 0.263 / 0.243 ms, backward 0.558 / 0.477 ms at
# head dim 64 / 128, at the same run's 4.20 TB/s copy rate (h200-calibrate-tool-2026-11-26.json)
# 32 and 65 bytes per element: the fp32 product, the broadcast log-sum-exp and their gradients
# (tests/engine/test_attention_windows.py).
SINK_RESCALE_BYTES = (32.0, 65.0)


def elementwise_bytes(shape, tokens, tp, sp, stack, fp8: bool, ffn=None):
    """(forward, backward) HBM bytes of one layer's element-wise kernels. `ffn`: the FFN width
    each token's activation runs over on this GPU (default the dense FFN / tp; an MoE layer
    passes its routed and shared experts' widths, moe_activation_width)."""
    replicated = tokens / np.where(sp, tp, 1.0)
    dropout_mask = 1.0 if stack.dropout else 0.0
    dropout_backward = 5.0 if stack.dropout else 0.0
    h = shape.hidden
    ffn = shape.ffn / tp if ffn is None else ffn
    gated = shape.mlp_matrices == 3
    norm_and_residual_forward = h * (2 * 4.0 + 2 * (6.0 + dropout_mask))
    norm_and_residual_backward = h * (2 * 6.0 + 2 * (6.0 + dropout_backward))
    activation_forward = ffn * (6.0 if gated else 4.0)
    activation_backward = ffn * (10.0 if gated else 6.0)
    rotary = 0.0
    if stack.attention_kernel == "flash":
        rotary = 4.0 * shape.attention.rope_width(tp)
    # MLA normalises its two latents (RMSNorm, replicated over TP): read + write forward,
    # three tensors backward, as the layer norms above.
    latents = shape.attention.q_lora + shape.attention.kv_lora
    activation_forward = activation_forward + 4.0 * latents
    activation_backward = activation_backward + 6.0 * latents
    sinks_forward = sinks_backward = 0.0
    if shape.sinks and stack.attention_backend == "flex":
        output = shape.attention_width / tp
        sinks_forward, sinks_backward = (b * output for b in SINK_RESCALE_BYTES)
    cast_forward = cast_backward = 0.0
    if fp8:
        up_width = (shape.mlp_matrices - 1) * ffn
        cast_forward = 3.0 * (shape.attention_width / tp + ffn)
        cast_backward = 3.0 * (shape.qkv_width / tp + up_width + 2 * h)
    forward = replicated * norm_and_residual_forward + tokens * (
        activation_forward + rotary + cast_forward + sinks_forward
    )
    backward = replicated * norm_and_residual_backward + tokens * (
        activation_backward + rotary + cast_backward + sinks_backward
    )
    return forward, backward


def moe_activation_width(shape, tp, imbalance):
    """FFN width a token's activation (and its FP8 cast) runs over in an MoE layer: top_k
    routed experts (x the busiest rank's load) plus the shared experts, each expert_ffn wide
    and split by tp as the expert GEMMs are (layer_cost._mlp_gemms)."""
    return (shape.top_k * imbalance + shape.shared_experts) * shape.expert_ffn / tp


# Output head: vocab-parallel cross-entropy on fp32 logits. Forward writes the bf16 logits,
# reads them and writes fp32 softmax statistics (2 + 2 + 4); backward reads the fp32 values
# and writes the bf16 gradient (4 + 2 + 2 for the label gather / subtract).
CROSS_ENTROPY_BYTES_PER_LOGIT = 16.0
