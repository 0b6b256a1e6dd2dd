"""Memory per GPU for a Megatron-style transformer layout.

Formulas (bytes, 16-bit activations) from Korthikanti et al. 2022, "Reducing Activation
Recomputation in Large Transformer Models" (arXiv 2205.05198), section 4:
  no parallelism:       s*b*h*(34 + 5*a*s/h)                 per layer
  tensor parallel t:    s*b*h*(10 + 24/t + 5*a*s/(h*t))
  TP + sequence par.:   s*b*h*(34 + 5*a*s/h) / t
  TP + SP + selective:  34*s*b*h / t          (attention score memory recomputed)
  full recompute:       2*s*b*h (/ t with SP)  (only each layer's input is kept)
Pipeline 1F1B keeps p micro-batches in flight on the first stage, i.e. L layers' activations
in total; the interleaved schedule (v > 1 virtual stages) keeps more, a factor
(1 + (p-1)/(p*v)) (ibid. §4.2.3); the other schedules in pipeline_schedule.py.

Every function is plain arithmetic so it works on numpy arrays (the `auto` search) as well as
on floats.
"""

from dataclasses import dataclass

import numpy as np

from models_engine.engines.performance.attention_shape import (
    KORTHIKANTI_REPLICATED_ATTENTION,
    KORTHIKANTI_SHARDED_ATTENTION,
    AttentionShape,
)
from models_engine.engines.performance.pipeline_schedule import activation_layers

GIB = 2**30

# Mixed-precision Adam: 2 (bf16 weights) + 4 (fp32 gradient accumulation) + 12 (fp32 master
# weights, momentum, variance) = 18 bytes per parameter. EleutherAI "Transformer Math 101"
# gives 16 with bf16 gradients and notes 18 for stacks that keep fp32 gradients (Megatron's
# default, and what Korthikanti's 45.56 GiB for 22B / 175B implies: 2.718e9 params x 18 B).
WEIGHT_BYTES_PER_PARAM = 2
GRADIENT_BYTES_PER_PARAM = 4
OPTIMIZER_BYTES_PER_PARAM = 12
# FP8 training keeps an FP8 copy of every linear layer's weight next to the BF16 one
# (Transformer Engine's default "dual precision weights", Megatron-LM docs/discussions/
# deepseek-v3-gb200-optimization section 1, item 6); embedding and output head stay BF16.
# One byte per parameter; a transposed FP8 copy some recipes cache is not counted (assumed).
FP8_WEIGHT_COPY_BYTES = 1
# PyTorch FSDP (mixed precision: param_dtype bf16) and JAX / MaxText (weight_dtype float32)
# keep the parameters themselves in fp32 and let the optimizer update them in place: the fp32
# parameter is the master copy, so there is no separate 2-byte working copy. Model states are
# 4 (fp32 parameter) + gradient buffer + 8 (momentum, variance): 16 bytes per parameter with
# fp32 gradients, against Megatron's 18 (PyTorch FSDP2 docs, MixedPrecisionPolicy: "sharded
# parameters stay in their original dtype, unsharded for compute in param_dtype"; MaxText
# base.yml weight_dtype: float32). The all-gathered BF16 layer the step computes with is
# transient (one or two layers; not counted).
FP32_PARAM_BYTES = 4
MOMENTS_BYTES_PER_PARAM = 8
# Pure BF16 training (no fp32 master): the BF16 weight is what the optimizer updates, the
# reduced gradient is stored in the weight's dtype and torch.optim's Adam allocates its two
# moments like the weight: 2 + 2 + 4 = 8 bytes per parameter (KempnerForge TrainConfig:
# param_dtype "resolves mixed_precision to the master weight dtype", bf16).
BF16_STATE_BYTES = {"weight": 2, "gradient": 2, "moments": 4}


def state_precision(
    gradient_bytes: int = GRADIENT_BYTES_PER_PARAM,
    *,
    fp8_weights: bool = False,
    fp32_master_params: bool = False,
    bf16_master: bool = False,
) -> dict:
    """model_state_bytes' precision arguments for the transformer layers' weights: Megatron-
    style (a BF16 working copy, fp32 master in the optimizer), FSDP / JAX-style (the fp32
    parameters are the master) or pure BF16 (BF16_STATE_BYTES). `gradient_bytes` is the
    stack's gradient-reduction precision; unsharded gradients FSDP holds between micro-batches
    are kept in it whatever the stored gradient's dtype (see holds_unsharded_gradients)."""
    fp8_copy = FP8_WEIGHT_COPY_BYTES if fp8_weights else 0
    if bf16_master:
        return {
            "gradient_bytes": BF16_STATE_BYTES["gradient"],
            "held_gradient_bytes": gradient_bytes,
            "weight_bytes": BF16_STATE_BYTES["weight"] + fp8_copy,
            "optimizer_bytes": BF16_STATE_BYTES["moments"],
        }
    if fp32_master_params:
        return {
            "gradient_bytes": gradient_bytes,
            "held_gradient_bytes": gradient_bytes,
            "weight_bytes": FP32_PARAM_BYTES + fp8_copy,
            "optimizer_bytes": MOMENTS_BYTES_PER_PARAM,
        }
    return {
        "gradient_bytes": gradient_bytes,
        "held_gradient_bytes": gradient_bytes,
        "weight_bytes": WEIGHT_BYTES_PER_PARAM + fp8_copy,
        "optimizer_bytes": OPTIMIZER_BYTES_PER_PARAM,
    }


@dataclass(frozen=True)
class LayerShape:
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    ffn_hidden_size: int
    gated_mlp: bool
    attention: AttentionShape | None = None  # None: multi-head / GQA from the fields above

    @property
    def mlp_matrices(self) -> int:
        return 3 if self.gated_mlp else 2

    def attention_params(self) -> float:
        """The attention block's weights (attention_shape.AttentionShape.params): Q and O at
        full head width, K and V shrunk by grouped-query attention, or MLA's projections."""
        attention = self.attention or AttentionShape(
            self.hidden_size, self.attention_heads, self.kv_heads, self.head_dim
        )
        return attention.params()

    def dense_mlp_params(self) -> float:
        return self.mlp_matrices * self.hidden_size * self.ffn_hidden_size

    def params_per_layer(self) -> float:
        """A dense layer: attention + MLP + two norms."""
        return self.attention_params() + self.dense_mlp_params() + 2 * self.hidden_size


@dataclass(frozen=True)
class ExpertShape:
    experts: int
    shared_experts: int
    expert_ffn_hidden_size: int

    def routed_params(self, hidden: int, mlp_matrices: int) -> float:
        return self.experts * mlp_matrices * hidden * self.expert_ffn_hidden_size

    def shared_params(self, hidden: int, mlp_matrices: int) -> float:
        router = hidden * self.experts
        return self.shared_experts * mlp_matrices * hidden * self.expert_ffn_hidden_size + router


RECOMPUTE_CODES = {"none": 0, "selective": 1, "full": 2}


# FP8 / MXFP8 training with Transformer Engine: each linear layer keeps the quantized copy of its
# input for the weight gradient (TE Linear / LayerNormLinear / LayerNormMLP save the FP8
# tensors they cast; "the FP8 input is saved for backward", TE docs, FP8 primer), one byte per
# element instead of two. Of Korthikanti's 34 bytes per token and hidden unit that saves 1 on
# the QKV input and 1 on the FC1 input (replicated without SP) and 1 on the attention output
# projection's input and 4 on the FC2 input (4h wide, TP-sharded): 34 -> 27. The layer norms'
# inputs, Q / K / V and the activation function's input stay BF16.
FP8_SAVED_INPUT_SAVINGS = {"replicated": 2.0, "sharded": 5.0}


def activation_bytes_per_layer(
    *,
    seq_len,
    micro_batch,
    hidden,
    heads,
    tp,
    sequence_parallel,
    recompute,
    attention_kernel: str = "unfused",
    full_share=1.0,
    attention_sharded=KORTHIKANTI_SHARDED_ATTENTION,
    attention_replicated=KORTHIKANTI_REPLICATED_ATTENTION,
    selective_stored=None,
    fp8_saved_inputs=False,
):
    """Bytes of stored activations for one transformer layer on one GPU (Korthikanti §4).

    `recompute` is "none" / "selective" / "full" or an array of RECOMPUTE_CODES;
    `sequence_parallel` a bool or bool array. A flash-attention kernel never stores the
    s x s scores (it recomputes them in backward), so "none" keeps what "selective" keeps.
    `full_share`: share of the layers full recomputation covers; the rest keep everything
    (the mean over a stage's layers). `attention_sharded` / `attention_replicated`: the
    attention block's stored bytes per token over h that TP shards / every rank keeps
    (Korthikanti's 8 and 3 of the 24 and 10; AttentionShape gives MLA's).
    `selective_stored`: (TP-split, whole) bytes per token over h that the stack's selective
    recomputation keeps where it is not Korthikanti's (flops.alternate_matmul_stored_per_hidden);
    None: Korthikanti's. `fp8_saved_inputs`: the linear layers keep 8-bit inputs
    (FP8_SAVED_INPUT_SAVINGS)."""
    code = RECOMPUTE_CODES[recompute] if isinstance(recompute, str) else np.asarray(recompute)
    sbh = seq_len * micro_batch * hidden
    attention_scores = 5 * heads * seq_len / hidden
    if attention_kernel == "flash":
        attention_scores = 0.0
    sp = np.asarray(sequence_parallel, dtype=bool)
    replicated = 7 + attention_replicated  # 10 for Korthikanti's attention
    sharded = 16 + attention_sharded  # 24
    saved = np.asarray(fp8_saved_inputs, dtype=bool)
    replicated = replicated - np.where(saved, FP8_SAVED_INPUT_SAVINGS["replicated"], 0.0)
    sharded = sharded - np.where(saved, FP8_SAVED_INPUT_SAVINGS["sharded"], 0.0)
    full = 2 * sbh / np.where(sp, tp, 1)
    kept_sharded, kept_replicated = (
        (sharded, replicated) if selective_stored is None else selective_stored
    )
    selective = np.where(
        sp,
        (kept_replicated + kept_sharded) * sbh / tp,
        sbh * (kept_replicated + kept_sharded / tp),
    )
    none = np.where(
        sp,
        sbh * (replicated + sharded + attention_scores) / tp,
        sbh * (replicated + sharded / tp + attention_scores / tp),
    )
    share = np.asarray(full_share, dtype=float)
    full = share * full + (1.0 - share) * none
    result = np.where(code == 2, full, np.where(code == 1, selective, none))
    return float(result) if np.ndim(result) == 0 else result


def in_flight_layers(*, layers, pp, virtual_stages, microbatches=None, schedule=0):
    """Layers' worth of one micro-batch's activations the busiest pipeline stage keeps
    (an even split of `layers`; pipeline_schedule.activation_layers for uneven ones)."""
    per_stage = np.asarray(layers, dtype=float) / np.asarray(pp, dtype=float)
    m = np.inf if microbatches is None else microbatches
    result = activation_layers(schedule, pp, virtual_stages, m, per_stage, per_stage, per_stage)
    return float(result) if np.ndim(result) == 0 else result


# FSDP with gradient sync off for all but the last micro-batch keeps each parameter's unsharded
# gradient between micro-batches in the gradient-reduction dtype, not the parameter dtype:
# FSDP2 (torch.distributed.fsdp._fully_shard._fsdp_param, FSDPParam.to_accumulated_grad_if_needed)
# moves the unsharded gradient into `unsharded_accumulated_grad` cast to the mixed-precision
# policy's reduce_dtype whenever that differs from the gradient's dtype, and accumulates the
# next micro-batches into it. With reduce_dtype fp32 that is 4 bytes per parameter of the TP
# shard. KempnerForge's 70B logs (weak_scaling_160gpu/results/70b_032gpu_tp4_fsdp8.log: TP 4,
# accumulation 4, reduce_dtype float32) peak at 84.6 GB before the optimizer's first step:
# 70.55 B / 4 x 4 B = 70.6 GB held, plus the 4.4 GB weight shard and the checkpointed inputs
# (2 B would leave ~40 GB unexplained); the 175B report's OOM note names "the unsharded fp32
# gradient" too. The held bytes are therefore the stack's grad_reduce_bytes (state_precision).


def embedding_params_per_gpu(vocab, hidden, tp, copies, embedding_tp="vocab_parallel"):
    """Embedding parameters on the GPU that holds the input embedding: the input table (split
    over the TP ranks unless the stack replicates it: embedding_tp) plus, for `copies` 2, the
    untied output head (always split)."""
    table = vocab * hidden
    input_split = tp if embedding_tp == "vocab_parallel" else 1.0
    return table / input_split + (copies - 1.0) * table / tp


# The loss over the output logits: at the end of each micro-batch's forward, with every layer's
# activations still stored, the stage that holds the output head also holds the logits and
# what the cross-entropy makes of them. Bytes per logit value (one token x one vocabulary entry
# on one GPU) at that peak, by stack (SoftwareStack.loss_logits_bytes):
# - Megatron (Megatron-LM, Megatron-Core / NeMo, Megatron-DeepSpeed): 6. The bf16 logits (2)
#   and their fp32 copy (4): VocabParallelCrossEntropy.calculate_logits_max casts to fp32,
#   then subtracts the max and exponentiates in place and saves that buffer as the softmax,
#   whose gradient backward writes in place (megatron/core/tensor_parallel/cross_entropy.py).
# - Eager PyTorch with the loss in fp32 (software_stack.cross_entropy fp32: torchtitan's
#   cross_entropy(pred.float(), ...), the bf16 logits deleted before backward): 12.
#   Backward holds the saved fp32 log-probabilities (4), the gradient arriving from the NLL
#   loss (4) and the log-softmax input gradient it produces (4); the forward peak is 10 (bf16
#   logits 2 + fp32 copy 4 + log-probabilities 4).
# - Eager PyTorch with the loss on the bf16 logits (software_stack.cross_entropy bf16:
#   KempnerForge's F.cross_entropy(logits.view(-1, V), ...), kempnerforge/training/loss.py;
#   NeMo AutoModel's MaskedCrossEntropy with fp32_upcast false, examples/benchmark/configs):
#   8. Forward saves bf16 log-probabilities (2) beside the logits (2); backward adds the NLL
#   gradient (2) and the log-softmax input gradient (2). Checked, not fitted: with it the
#   engine comes within 3.5 GiB of every published peak of KempnerForge's 13B and 70B
#   weak-scaling runs (2.1 G and 1.05 G logit values per micro-batch; without it the 13B
#   runs were ~15 GiB low).
# - A fused cross-entropy kernel (software_stack.cross_entropy fused: flash-attn's Triton
#   CrossEntropyLoss, llm-foundry's default loss_fn fused_crossentropy): 4. It saves the bf16
#   logits and one log-sum-exp per token, and backward writes a bf16 gradient beside them.
# With vocab-parallel logits (embedding_tp "vocab_parallel": Megatron's vocab-parallel
# cross-entropy, torchtitan's loss parallel) each TP rank holds vocab / tp of every token's
# logits; "replicated" gathers them whole for the loss (KempnerForge's output head:
# ColwiseParallel with output_layouts Replicate, kempnerforge/distributed/tensor_parallel.py).
MEGATRON_LOSS_LOGITS_BYTES = 6.0
EAGER_LOSS_LOGITS_BYTES = {"fp32": 12.0, "bf16": 8.0, "fused": 4.0}


def output_logits_bytes(tokens, vocab, tp, embedding_tp, bytes_per_value):
    """The loss's transient over one micro-batch's logits on a GPU of the stage with the
    output head: `tokens` per micro-batch on the GPU (sequence / cp x micro-batch)."""
    split = np.where(embedding_tp == "vocab_parallel", tp, 1.0)
    return tokens * vocab / split * bytes_per_value


def resident_activation_layers(in_flight, stage_layers, offload_layers):
    """Layers' worth of activations left on the GPU when `offload_layers` of the stage's
    layers send theirs to host memory (Megatron-Core cpu_offloading_num_layers): every
    in-flight micro-batch keeps only the other layers' share, plus one layer's activations in
    transit (the copy of a layer overlaps the next layer's compute)."""
    offload = np.minimum(np.asarray(offload_layers, dtype=float), stage_layers)
    share = offload / np.maximum(stage_layers, 1.0)
    return np.where(offload > 0, in_flight * (1.0 - share) + 1.0, in_flight)


def holds_unsharded_gradients(
    zero_stage, microbatches, fsdp_grad_sync: str, pp=1, pipeline_reduce_at_end: bool = False
):
    """True where FSDP accumulates gradients unsharded across micro-batches: with sync on the
    last micro-batch only, or under a torch.distributed.pipelining schedule that reduces the
    stage's gradients once after its last backward (SoftwareStack.pipeline_grad_reduce_at_end:
    ZeRO-2-like FSDP2 without resharding after forward too)."""
    zero = np.asarray(zero_stage)
    last_only = fsdp_grad_sync == "last_microbatch"
    deferred = (zero == 3) & (np.asarray(microbatches) > 1) & last_only
    pipelined = (zero >= 2) & (np.asarray(pp) > 1) & pipeline_reduce_at_end
    return deferred | pipelined


def model_state_bytes(
    *,
    params_on_gpu,
    dp,
    zero_stage,
    gradient_bytes=GRADIENT_BYTES_PER_PARAM,
    weight_bytes=WEIGHT_BYTES_PER_PARAM,
    optimizer_bytes=OPTIMIZER_BYTES_PER_PARAM,
    trained_share=1.0,
    adapter_share=0.0,
    held_gradients=False,
    held_gradient_bytes=GRADIENT_BYTES_PER_PARAM,
):
    """Weights, gradients and optimizer states on one GPU; ZeRO shards them over `dp` ranks
    (the shard group). `gradient_bytes`: the gradient buffer's bytes per parameter, the
    software stack's gradient-reduction precision (Megatron's fp32 main_grad: 4; a bf16
    gradient buffer, Megatron-Core --grad-reduce-in-bf16 / NeMo distributed Adam: 2);
    `weight_bytes`: 2, or 3 for FP8 layers (FP8_WEIGHT_COPY_BYTES), 4 where the fp32
    parameters are the master (state_precision); `optimizer_bytes`: 12 (fp32 master, momentum,
    variance) or 8 where the parameters are the master. Works on arrays
    (zero_stage may be an array). `trained_share`: trained weights over `params_on_gpu`
    (fine-tuning: only they keep gradients and optimizer states); `adapter_share`: LoRA
    adapter weights over `params_on_gpu`, held in BF16 on top of the frozen base;
    `held_gradients` (holds_unsharded_gradients): the unsharded gradients FSDP keeps between
    micro-batches when it reduce-scatters only the last one, `held_gradient_bytes` each (the
    reduction dtype). They replace the sharded gradients rather than add to them: the
    optimizer's zero_grad (set_to_none, PyTorch's default) frees the sharded ones after each
    step, and the last micro-batch's backward frees each layer's unsharded gradient as it
    reduce-scatters it into the shard, so the two never peak together."""
    zero = np.asarray(zero_stage)
    weights = params_on_gpu * (weight_bytes + adapter_share * WEIGHT_BYTES_PER_PARAM)
    gradients = params_on_gpu * trained_share * gradient_bytes
    optimizer = params_on_gpu * trained_share * optimizer_bytes
    optimizer = np.where(zero >= 1, optimizer / dp, optimizer)
    gradients = np.where(zero >= 2, gradients / dp, gradients)
    held = params_on_gpu * trained_share * held_gradient_bytes
    gradients = np.where(held_gradients, held, gradients)
    weights = np.where(zero >= 3, weights / dp, weights)
    if np.ndim(weights) == 0:
        return float(weights), float(gradients), float(optimizer)
    return weights, gradients, optimizer
