"""Training software stacks: what each framework generation runs (attention kernel, which
communication it overlaps, gradient reduction precision) and the losses of a real multi-GPU
step it adds on top of the kernels (kernel_data.py), per GPU generation.

Losses, each a fraction of kernel time on the critical path, named in the step breakdown:
  kernel_launch_gaps  measured (kernel_data `launch_gap`: eager block time over the sum of its
                      kernels); stacks that capture CUDA graphs or compile the step set
                      `launch_gaps` False
  stack_overhead      synchronisation across ranks, stragglers, clocks under sustained power,
                      framework bookkeeping: the residual between the measured kernels and the
                      stack's published runs, FITTED once per stack x GPU generation (never per
                      case); `calibration` names the runs and the resulting errors
FP8 runs add `fp8_gemm_fixed_us` per FP8 GEMM call (Transformer Engine's amax / scale update
and the cast / transpose kernels around each GEMM), fitted with the overhead; a grouped expert
GEMM pays the delayed recipe's once per call (compute_profile.GROUPED_ONCE_RECIPES).

A stack x generation without published runs uses the stack's Hopper entry and says so
(UNCERTAIN) in the result.
"""

from models_engine.engines.performance.memory import (
    EAGER_LOSS_LOGITS_BYTES,
    MEGATRON_LOSS_LOGITS_BYTES,
)
from models_engine.engines.performance.pipeline_schedule import COMBINED_1F1B_CONCURRENT_SHARE

MEGATRON_2022 = "megatron-lm-2022"
MEGATRON_CORE_2024 = "megatron-core-te-2024"
NEMO_BLACKWELL_2025 = "nemo-2025-blackwell"
MAXTEXT = "maxtext-jax"
COMPOSER_FSDP = "mosaic-composer-fsdp"
TORCHTITAN = "torchtitan"
DEEPSPEED_MEGATRON = "deepspeed"
NEMO_EAGER_MOE_2025 = "nemo-2025-moe-eager"

# Host time per routed-expert operation launched by an eager Megatron-Core / Transformer
# Engine stack (layer_cost.expert_launch_wait_s). Each PyTorch operation costs ~5-25 us of
# CPU work before its kernel is queued (Python, pybind, autograd, ATen dispatch, backend,
# cudaLaunchKernel: jiahuanglin.xyz/all_lessons/gpu_kernel_serving/18_pytorch_to_kernel.html,
# dispatch-chain table); a TE expert GEMM or MXFP8 cast is at the top of that range, as it
# makes several PyTorch API calls per op (four tensor allocations per quantized tensor,
# Megatron-LM docs/discussions/deepseek-v3-gb200-optimization section 2.1.2; torch.split and
# 2 x num_gemms torch.empty calls in GroupedLinear's cast, named by a Transformer Engine
# maintainer as the host overhead of GroupedLinear: NVIDIA/TransformerEngine issue 1499,
# 2025-02-24). Taken as 25 us, the range's upper end, for x86 and Grace hosts alike (not
# fitted on the registry: 15 / 20 / 25 / 30 us gave check-only p90 26.3 / 26.3 / 23.9 / 21.2 %;
# the Megatron-Bridge 25.11 B200 MoE runs at micro-batch 1 stay 17-27 % fast at 25 us).
# Measured lower bound: a plain PyTorch expert GEMM (`x @ w.T`, no Transformer Engine) costs
# 14-19 us of host time per call on the x86 host of an H100 SXM server, issued while the GPU
# is busy (tests/fixtures/gpu_microbench/h100-calibrate-experts-2026-11-26.json,
# `expert_group`); Transformer Engine's GroupedLinear adds its allocations and casts on top.
HOST_S_PER_EXPERT_OP = 25e-6

# torch.compile on an eager PyTorch FSDP stack (`workload.software_stack.compiled`): the same
# model, GPUs and layout run 1.157x faster compiled in torchtitan's end-2024 H100 benchmark
# (Llama 3.1 8B, FSDP, selective AC: 8 GPUs 5,762 -> 6,667 tokens/s/GPU, Table 1; 128 GPUs
# 5,605 -> 6,514, 1.162x, Table 3; pytorch/torchtitan benchmarks/
# llama3_h100_202412_torchtitan.md). Compile fuses the memory-bound kernels and cuts the
# launches between them, so the kernels the engine prices (GEMMs, attention) stay and the step
# loses what eager adds around them: the stack's named losses shrink until a compute-bound step
# is 1/1.16 of eager's. FITTED on those two pairs of rows (registry family torchtitan-h100-2412,
# not scored: their 96 GB HBM2e H100 at 500 W is not in the catalog); one number for every GPU
# and compilable stack (UNCERTAIN beyond Hopper and beyond torchtitan's per-block compile).
COMPILE_SPEEDUP = 1.16

SOFTWARE_STACKS = {
    MEGATRON_2022: {
        "description": (
            "Megatron-LM as in Narayanan et al. 2021 and Korthikanti et al. 2022 (the published "
            "A100 runs): unfused softmax attention with dropout, fp16/bf16 only, no overlap of "
            "tensor-parallel, data-parallel or pipeline communication with compute."
        ),
        "attention_kernel": "unfused",
        "attention_backend": "unfused",
        "dropout": True,
        "tp_comm_overlap": False,
        "dp_comm_overlap": False,
        "pp_p2p_overlap": False,
        # Megatron's fp32 main_grad buffers are reduced in fp32.
        "grad_reduce_bytes": 4,
        "launch_gaps": False,
    },
    MEGATRON_CORE_2024: {
        "description": (
            "NeMo 24.x / Megatron-Core with Transformer Engine (the published H100 runs): "
            "cuDNN fused attention in BF16 also for FP8 runs, no dropout, TP communication "
            "overlapped with GEMMs (userbuffers), distributed optimizer with gradient "
            "reduce-scatter and parameter all-gather overlapped, overlapped pipeline P2P."
        ),
        "attention_kernel": "flash",
        "attention_backend": "cudnn",
        "dropout": False,
        "tp_comm_overlap": True,
        "dp_comm_overlap": True,
        "pp_p2p_overlap": True,
        # NeMo distributed_fused_adam reduces gradients in bf16.
        "grad_reduce_bytes": 2,
        "launch_gaps": True,
        "host_s_per_expert_op": HOST_S_PER_EXPERT_OP,
        "fp8_saved_inputs": True,
        # Megatron-Core 0.14+ combined 1F1B (software_stack.ep_comm_overlap)
        "combined_1f1b": True,
    },
    NEMO_BLACKWELL_2025: {
        "description": (
            "NeMo 25.x / Megatron-Core with Transformer Engine 2 on Blackwell (the published "
            "GB200 / B200 runs, DGX Cloud recipes 25.05-25.08): as megatron-core-te-2024, cuDNN "
            "attention, TP / DP / PP overlap, bf16 gradient reduction."
        ),
        "attention_kernel": "flash",
        "attention_backend": "cudnn",
        "dropout": False,
        "tp_comm_overlap": True,
        "dp_comm_overlap": True,
        "pp_p2p_overlap": True,
        "grad_reduce_bytes": 2,
        "launch_gaps": True,
        "host_s_per_expert_op": HOST_S_PER_EXPERT_OP,
        "fp8_saved_inputs": True,
        # Megatron-Core 0.14+ combined 1F1B (software_stack.ep_comm_overlap)
        "combined_1f1b": True,
    },
    MAXTEXT: {
        "description": (
            "MaxText on JAX / XLA (NVIDIA JAX container 2024-12): FSDP sharding, cuDNN fused "
            "attention through Transformer Engine, XLA schedules the FSDP all-gathers and "
            "reduce-scatters asynchronously with compute, whole step compiled (no eager "
            "launch gaps)."
        ),
        "attention_kernel": "flash",
        "attention_backend": "cudnn",
        "dropout": False,
        "tp_comm_overlap": True,
        "dp_comm_overlap": True,
        "pp_p2p_overlap": True,
        "grad_reduce_bytes": 2,
        "launch_gaps": False,
        # MaxText's weight_dtype float32: parameters are the optimizer's master copy.
        "fp32_master_params": True,
        # ASSUMPTION: one fp32 copy beside the bf16 logits, as Megatron's vocab-parallel loss
        # (memory.MEGATRON_LOSS_LOGITS_BYTES); XLA's fusion of the softmax is not measured.
        "loss_logits_bytes": MEGATRON_LOSS_LOGITS_BYTES,
    },
    COMPOSER_FSDP: {
        "description": (
            "MosaicML Composer / llm-foundry with PyTorch FSDP (FULL_SHARD), flash-attn "
            "kernels (not cuDNN), eager PyTorch, FSDP prefetch overlapping the parameter "
            "all-gathers and gradient reduce-scatters, no tensor or pipeline parallelism."
        ),
        "attention_kernel": "flash",
        "attention_backend": "flash",
        "dropout": False,
        "tp_comm_overlap": False,
        "dp_comm_overlap": True,
        "pp_p2p_overlap": False,
        "compilable": True,
        # FSDP auto-wraps each transformer block; the embedding and output head stay in the
        # root unit (llm-foundry FSDP config: auto_wrap on the blocks).
        "fsdp_root_unit": True,
        # llm-foundry's default loss_fn fused_crossentropy (flash-attn's Triton kernel:
        # memory.EAGER_LOSS_LOGITS_BYTES)
        "cross_entropy": "fused",
        "loss_logits_bytes": EAGER_LOSS_LOGITS_BYTES["fused"],
        # FSDP mixed precision reduces gradients in the parameter dtype (bf16).
        "grad_reduce_bytes": 2,
        "launch_gaps": True,
        # FSDP mixed precision keeps the sharded flat parameters in fp32 (the optimizer's
        # master) and computes on bf16 copies gathered per layer.
        "fp32_master_params": True,
    },
    TORCHTITAN: {
        "description": (
            "torchtitan (PyTorch FSDP2, eager): per-layer FULL_SHARD with prefetch overlapping "
            "the parameter all-gathers and gradient reduce-scatters, PyTorch SDPA flash "
            "attention, no tensor-parallel overlap, gradients reduced in fp32 (torchtitan's "
            "default mixed_precision_reduce)."
        ),
        "attention_kernel": "flash",
        "attention_backend": "flash",
        "dropout": False,
        "tp_comm_overlap": False,
        "dp_comm_overlap": True,
        "pp_p2p_overlap": False,
        "grad_reduce_bytes": 4,
        "launch_gaps": True,
        "compilable": True,
        # fully_shard per TransformerBlock, then on the whole model: embedding, final norm and
        # output head form the root unit (torchtitan parallelize_llama apply_fsdp)
        "fsdp_root_unit": True,
        # pipeline parallelism through torch.distributed.pipelining: FSDP's gradient
        # reduction runs once per step after the schedule's last backward
        # (compute_profile.Stack.pipeline_grad_reduce_at_end)
        "pipeline_grad_reduce_at_end": True,
        # cross_entropy on the logits cast to fp32 (memory.EAGER_LOSS_LOGITS_BYTES)
        "cross_entropy": "fp32",
        "loss_logits_bytes": EAGER_LOSS_LOGITS_BYTES["fp32"],
        # DTensor tensor parallelism (ColwiseParallel / RowwiseParallel with sequence
        # parallelism): each redistribution is a collective in its autograd node, and the
        # matmul that needs it waits (torch.compile included) unless async TP is on
        # (parallelism.enable_async_tensor_parallel, whose motivation is exactly that blocking
        # communication: pytorch/torchtitan docs and the "Introducing Async Tensor Parallelism
        # in PyTorch" post, discuss.pytorch.org/t/209487). Megatron's asynchronous
        # input-gradient all-reduce under the weight-gradient GEMM has no DTensor counterpart.
        "tp_grad_overlap": False,
        # FSDP2 shards the fp32 parameters (the master) and all-gathers them in bf16.
        "fp32_master_params": True,
        # torchtitan's selective AC ("op", its default selective option): save the outputs of
        # every matmul except every second one, of SDPA and of reduce-scatters; recompute
        # everything else (torchtitan distributed/activation_checkpoint.py, _custom_policy:
        # "Saves output of all compute ops, except every second mm")
        "selective_recompute": "alternate_matmuls",
    },
    DEEPSPEED_MEGATRON: {
        "description": (
            "DeepSpeed with Megatron-LM layers (Megatron-DeepSpeed, 2021-2022: MT-NLG, BLOOM): "
            "Megatron's unfused attention and tensor parallelism, DeepSpeed's pipeline engine "
            "and ZeRO-1, no overlap of tensor-parallel, data-parallel or pipeline "
            "communication with compute, fp32 gradient reduction."
        ),
        "attention_kernel": "unfused",
        "attention_backend": "unfused",
        "dropout": True,
        "tp_comm_overlap": False,
        "dp_comm_overlap": False,
        "pp_p2p_overlap": False,
        "grad_reduce_bytes": 4,
        "launch_gaps": False,
    },
}

# Early-2025 Megatron-Core MoE on Blackwell (NeMo 25.04 recipes; the baseline of NVIDIA's
# DeepSeek-V3 GB200 write-up): the same kernels and overlaps as nemo-2025-blackwell, but no CUDA
# graphs, an unfused router (72 kernels in its forward alone, 31 once fused: Megatron-LM
# docs/discussions/deepseek-v3-gb200-optimization section 2.1.4), unfused permute and the NCCL
# all-to-all dispatcher. Its MoE layers are host-bound as a whole (section 2: "the CPU kernel
# launch speed cannot keep up with the kernel execution speed on GPU"): layer time is the
# larger of GPU time and host time (layer_cost.host_bound_moe_layer_wait_s).
SOFTWARE_STACKS[NEMO_EAGER_MOE_2025] = {
    **SOFTWARE_STACKS[NEMO_BLACKWELL_2025],
    "description": (
        "NeMo 25.04 / early-2025 Megatron-Core MoE on Blackwell: as nemo-2025-blackwell, but "
        "MoE layers run eagerly (no CUDA graphs, unfused router and permute, NCCL all-to-all "
        "dispatcher) and wait for the host: each MoE layer takes the larger of its GPU time "
        "and its host time."
    ),
}

# Losses per stack x GPU generation: overhead (fraction of kernel time;
# `overhead_low_precision` where the stack's FP8 runs fit another value: it then applies to
# every 8-bit-or-narrower Transformer Engine recipe, FP8, MXFP8 and NVFP4 alike, whose losses
# sit in the per-GEMM-call work of the recipe), FP8 fixed time per GEMM call (us) and the runs
# they were fitted
# on (fit: tests/engine/test_performance_validation.py and test_performance_stacks.py cases,
# mean |error| + 0.3 x max |error| minimised on a grid, then rounded).
STACK_LOSSES: dict[tuple[str, str], dict] = {}
STACK_LOSSES[(MEGATRON_2022, "ampere")] = {
    "overhead": 0.0,
    "fp8_gemm_fixed_us": 0.0,
    "calibration": (
        "Korthikanti 2022 Table 5 (8 runs, A100): the A100 kernel fractions were fitted on "
        "these runs with the losses lumped in (no A100 kernel measurement to split them), "
        "so no separate overhead: mean |error| 2.2 %, max 3.8 %."
    ),
}
# Transformer Engine's per-tensor FP8 work per GEMM call on Hopper (amax, scale update, cast /
# transpose), fitted with the Megatron-Core overhead below. Those runs (NeMo 24.09, DGX Cloud
# v24.11) use the delayed-scaling recipe: an amax history per tensor, rolled and turned into
# the next scale after every GEMM, its amaxes reduced across the ranks. Fitted on dense layers,
# where a call is one module; a grouped expert GEMM pays it once, not per expert
# (compute_profile.GROUPED_ONCE_RECIPES).
TE_FP8_GEMM_FIXED_US = 110.0
# The same per-call work under Transformer Engine 2's current scaling (software_stack.fp8_recipe
# current, Megatron-Bridge's FP8-CS): the amax of each input is taken just before its cast, with
# no history to roll and no scale update after the GEMM. FITTED on the four single-node FP8-CS
# runs of Megatron-Bridge 25.11 (Llama 3 8B, TP 1, 8 GPUs: H100, B200, GB200, GB300; registry
# family megatron-bridge-25.11, role fit), one value for Hopper and Blackwell as it is one
# library's recipe: 110 / 40 / 30 / 20 / 15 us give mean |error| 6.7 / 2.4 / 2.0 / 1.6 / 1.4 %
# and max 9.2 / 2.7 / 3.4 / 4.2 / 4.6 % (mean + 0.3 x max lowest at 15-20 us; 20 us taken, the
# GB200 run the one below zero). NVFP4 keeps the delayed value: its recipe adds random
# Hadamard transforms and stochastic rounding (its four runs scatter -5 to +7 % either way).
TE_FP8_CURRENT_GEMM_FIXED_US = 20.0

STACK_LOSSES[(MEGATRON_CORE_2024, "hopper")] = {
    "overhead": 0.13,
    # FP8 runs need no overhead beyond Transformer Engine's per-GEMM work (fitted: 0). The
    # block-scaled recipes (MXFP8, NVFP4) run the same Transformer Engine path and take the
    # same rule: their losses are their per-GEMM-call work, not a share of kernel time.
    "overhead_low_precision": 0.0,
    "fp8_gemm_fixed_us": TE_FP8_GEMM_FIXED_US,
    "fp8_current_gemm_fixed_us": TE_FP8_CURRENT_GEMM_FIXED_US,
    "calibration": (
        "Fitted on the NVIDIA DGX Cloud H100 recipes [S15] on the measured H100 kernels "
        "(kernel_data, with the tile ramp and 2.9 us per GEMM kernel measured on H100): "
        "Llama 3.1 8B and 70B (v24.11.1, 22 runs: mean |error| 2.4 %, max 6.5 %) and GPT-3 "
        "175B, Nemotron-4 15B / 340B, Llama 3.1 405B (v24.11.1 and v25.05, 42 runs: mean "
        "3.5 %, max 9.7 %), BF16 and FP8 together, minimising mean |error| + 0.3 x max on a "
        "grid (overhead 0.12-0.14, FP8 95-120 us) with the Llama rows kept within 7 %. "
        "Overhead 13 % of kernel time on BF16 runs (0 % on FP8 runs, and so on MXFP8 and "
        "NVFP4 runs) beyond the measured 5.3 % launch gaps; FP8 adds 110 us per FP8 GEMM call "
        "(delayed scaling, those runs' recipe; once per grouped MoE expert GEMM, whose "
        "experts Transformer Engine casts in one call). FP8 with current scaling adds 20 us "
        "per call and per expert, "
        "fitted on the Megatron-Bridge 25.11 Llama 3 8B FP8-CS runs on 8 H100 / B200 / GB200 "
        "/ GB300 (4 runs: -4.2 to +0.8 %). Combined 1F1B (software_stack.ep_comm_overlap) "
        f"hides {COMBINED_1F1B_CONCURRENT_SHARE * 100:.2f} % of the paired expert all-to-all, as "
        "measured by the Nsight profile of the Megatron-Bridge Qwen3 30B-A3B EP-overlap A/B on "
        "16 H100 (fitted on its 'on' run, 1 run: -7.6 %; the overlapped Megatron-Bridge 25.11 / "
        "26.02 H100 Qwen3-235B runs, check-only, -2.8 / -1.0 %)."
    ),
}
STACK_LOSSES[(MAXTEXT, "hopper")] = {
    "overhead": 0.0,
    "fp8_gemm_fixed_us": 0.0,
    "calibration": (
        "Fitted on the 12 MaxText Llama 2 70B DGX H100 rows of the validation registry "
        "(dgxc-benchmarking v24.11 maxtext/README_70b.md: FSDP, hybrid groups of 128 from 512 "
        "GPUs, MBS 2, seq 4096, BF16 and FP8, 64-2048 GPUs; remat 'full' assumed): mean "
        "|error| 4.1 %, max 9.7 %, with no overhead beyond the measured kernels (the step is "
        "one compiled XLA program: no launch gaps) and no per-GEMM FP8 cost (XLA fuses the "
        "casts)."
    ),
}
# Eager PyTorch FSDP: a proportional overhead and a fixed host time per transformer layer and
# micro-batch (the FSDP unit's pre-forward / pre-backward / post-backward hooks, which issue and
# wait for its all-gather and reduce-scatter and unflatten or reshard its parameters, and the
# layer's eager Python and autograd work), both FITTED together on the llm-foundry H100 BF16
# rows (grid: overhead 0.08 / 0.095 / 0.11 x fixed 3 / 4 / 5 ms; mean |error| + 0.3 x max
# |error| lowest at 0.095 and 4 ms: mean 3.7 %, max 6.0 %). The single proportional overhead
# it replaces (25 %, fitted on the same rows: mean 10.1 %, max 15.2 %) left the runs with one
# micro-batch of 2 x 2048 tokens 12-14 % fast and the activation-checkpointed runs with 8-14
# sequences per micro-batch 11-15 % slow: a cost per layer and micro-batch does not grow
# with the kernels.
COMPOSER_LAYER_FIXED_US = 4000.0

STACK_LOSSES[(COMPOSER_FSDP, "hopper")] = {
    "overhead": 0.095,
    "layer_fixed_us": COMPOSER_LAYER_FIXED_US,
    "fp8_gemm_fixed_us": TE_FP8_GEMM_FIXED_US,
    "calibration": (
        "Fitted on the llm-foundry MPT H100 BF16 rows of the validation registry (11 runs, "
        "models_engine/validation/data/llm_foundry.json: mosaicml/llm-foundry "
        "scripts/train/benchmarking/README.md, FULL_SHARD, 1B-70B, seq 2048-8192, with and "
        "without activation checkpointing): mean |error| 3.7 %, max 6.0 %. Overhead 9.5 % of "
        "kernel time on top of flash-attn kernels and launch gaps, plus 4 ms of host time per "
        "transformer layer and micro-batch (eager FSDP's per-unit hooks and the layer's eager "
        "work, fitted together with the overhead; the table predates torch 2.0, its own "
        "note). FP8 per-GEMM cost: the Megatron-Core fit (UNCERTAIN; the two FP8 rows are "
        "check-only)."
    ),
}
# A100: the kernel fractions (kernel_data 'a100-fitted') were fitted on Megatron-LM 2022 runs
# with that stack's losses lumped in, so another stack on A100 adds only what it loses beyond
# a Megatron stack: its Hopper overhead less Megatron-Core's on Hopper (ASSUMPTION: the 2022
# stack's losses on A100 equal Megatron-Core's on H100, both being Megatron without eager
# FSDP). Not fitted on the llm-foundry A100 rows, which stay check-only.
STACK_LOSSES[(COMPOSER_FSDP, "ampere")] = {
    "overhead": max(
        0.0,
        STACK_LOSSES[(COMPOSER_FSDP, "hopper")]["overhead"]
        - STACK_LOSSES[(MEGATRON_CORE_2024, "hopper")]["overhead"],
    ),
    # host time, not GPU time: the same on either generation (ASSUMPTION)
    "layer_fixed_us": COMPOSER_LAYER_FIXED_US,
    "fp8_gemm_fixed_us": 0.0,  # A100 has no FP8 tensor path
    "calibration": (
        "Derived, no A100 run used: the A100 kernel fractions carry the Megatron-LM 2022 "
        "losses (the Korthikanti 2022 calibration), so Composer FSDP adds its Hopper "
        "overhead beyond Megatron-Core's (9.5 % - 13 %: none) and its host time per layer "
        "and micro-batch (4 ms; ASSUMPTION: equal Megatron losses on both generations, host "
        "time independent of the GPU). The llm-foundry A100 rows check it."
    ),
}
# MXFP8 per-GEMM fixed time (compute_profile.BLOCK_SCALED_FIXED_KEY): fitted on the one
# published MXFP8 run whose launch script is public, DeepSeek-V3 on 256 GB200 at the end of
# NVIDIA's optimisation write-up (Megatron-LM docs/discussions/deepseek-v3-gb200-optimization,
# 970 TFLOP/s per GPU; registry family megatron-lm-deepseek-v3-gb200), on top of the 2.9 us
# every GEMM kernel takes (efficiency_data.GEMM_KERNEL_FIXED_US, measured on an H100) and with
# DeepSeek-V3's attention as MLA (its four projection GEMMs), with no proportional overhead
# (the stack's `overhead_low_precision`, as its FP8 runs): 36 / 37 / 38 / 39 us give -0.4 /
# +0.1 / +0.5 / +1.0 %. It was 17 us while MXFP8 runs also paid the BF16 runs' 13 % of kernel
# time, which double-counted the recipe's losses on dense models: Megatron-Bridge 26.02's
# Llama 3 70B MXFP8 runs on 64 GB200 / GB300 came out +12 % slow against -5 / +5 % for the
# same model in FP8 (registry family megatron-bridge-26.02, check-only).
# Its routed experts are the only eager part of that
# run (attention, router and EP preprocess are CUDA graphs), after the device-host sync of the
# dropless dispatcher: each expert GEMM's quantize / scale-swizzle work and its launch cannot
# run ahead of the GPU (the write-up, sections 2.3 and 3.1).
MXFP8_GEMM_FIXED_US = 37.0

STACK_LOSSES[(NEMO_BLACKWELL_2025, "blackwell")] = {
    **STACK_LOSSES[(MEGATRON_CORE_2024, "hopper")],
    "mxfp8_gemm_fixed_us": MXFP8_GEMM_FIXED_US,
    "calibration": (
        "Losses of the same stack family on Hopper (megatron-core-te-2024: 13 % BF16 / 0 % "
        "FP8, MXFP8 and NVFP4 overhead, 110 us per delayed-scaling FP8 or NVFP4 GEMM); instead "
        "the Blackwell GEMM fractions "
        "(kernel_data 'blackwell-fitted') are fitted on the NVIDIA DGX Cloud Llama 3.1 405B GB200 "
        "runs (v25.05.04, "
        "BF16 and FP8, 128-512 GPUs, 6 runs: within 1.5 % when fitted, -0.9 to -5.0 % now). "
        "MXFP8 adds 37 us per GEMM call "
        "(quantize and scale swizzle per GEMM, one call per local expert), fitted on the "
        "Megatron-LM DeepSeek-V3 GB200 MXFP8 run (1 run, 256 GPUs, 970 TFLOP/s: +0.1 %). "
        "FP8 with current scaling adds 20 us per GEMM call (fitted on the Megatron-Bridge "
        "25.11 Llama 3 8B FP8-CS runs on 8 H100 / B200 / GB200 / GB300: -4.2 to +0.8 %). "
        "Cross-check, not fitted: the "
        "DeepSeek-V3 BF16 Megatron-Bridge run on 256 GB200 (NeMo 25.07, 11.07 s) comes out "
        "5 % slow with learned-routing imbalance (its source does not say whether it forced "
        "balance); the force-balanced Megatron-Bridge 25.11 GB200 / GB300 DeepSeek-V3 and "
        "Qwen3-235B BF16 runs within -3 % to +7 %. Combined 1F1B hides the share of the "
        "paired expert all-to-all measured on H100 (the Qwen3 30B-A3B EP-overlap A/B, "
        f"{COMBINED_1F1B_CONCURRENT_SHARE * 100:.2f} %; ASSUMED on Blackwell: the overlapped "
        "Megatron-Bridge 26.02 GB200 DeepSeek-V3 MXFP8 run, check-only, -7.4 %)."
    ),
}
# Stacks without a calibration of their own (ASSUMPTIONS, their registry runs stay check-only):
# torchtitan is eager PyTorch FSDP like Composer, so it takes Composer's losses; DeepSpeed +
# Megatron-LM runs Megatron-LM 2022's kernels and schedule, so it takes that stack's (none
# beyond the A100 kernel fractions).
# torchtitan (FSDP2: per-parameter DTensor shards, no flat parameters or rate limiter) keeps
# the single proportional overhead of the eager-FSDP fit, 25 % of kernel time (the llm-foundry
# rows fitted with one term: mean |error| 10.1 %, max 15.2 %), not Composer's FSDP1 split
# into a proportional part and a per-layer host time: FSDP2's per-unit host work is another
# implementation's, and with Composer's split the torchtitan A100 and KempnerForge check rows
# came out worse (torchtitan A100 median 3.4 -> 8.1 %, the 79-run baseline check set 5.4 ->
# 6.4 %). ASSUMPTION until a torchtitan run is fitted.
EAGER_FSDP2_OVERHEAD = 0.25

STACK_LOSSES[(TORCHTITAN, "hopper")] = {
    "overhead": EAGER_FSDP2_OVERHEAD,
    "fp8_gemm_fixed_us": TE_FP8_GEMM_FIXED_US,
    "calibration": (
        "No torchtitan run calibrates it: eager PyTorch FSDP's single proportional overhead, "
        "25 % of kernel time (fitted on the llm-foundry MPT H100 BF16 rows as one term; "
        "ASSUMPTION). Compiled (software_stack.compiled), the losses shrink by the compile "
        "speedup fitted on the torchtitan H100 eager / compile pairs (4 runs, registry family "
        "torchtitan-h100-2412: 1.157x and 1.162x, taken as 1.16x)."
    ),
}
STACK_LOSSES[(TORCHTITAN, "ampere")] = {
    "overhead": EAGER_FSDP2_OVERHEAD - STACK_LOSSES[(MEGATRON_CORE_2024, "hopper")]["overhead"],
    "fp8_gemm_fixed_us": 0.0,
    "calibration": (
        "No torchtitan run calibrates it: eager PyTorch FSDP's overhead beyond Megatron-Core's "
        "on Hopper (25 % - 13 % = 12 % of kernel time: the A100 kernel fractions carry "
        "Megatron-LM 2022's losses; ASSUMPTION). The torchtitan A100 rows check it."
    ),
}
# DeepSpeed + Megatron-LM on A100: the same model on the same machine shows what this stack
# loses beyond Megatron-LM's own: MT-NLG 530B (TP 8, PP 35, 2240 Selene GPUs, DeepSpeed's
# 1F1B pipeline engine) ran at 126 TFLOP/s per GPU (Smith et al. 2022, arXiv 2201.11990,
# Sec. 2.4), where Megatron-LM alone ran the same 530B model in the same TP 8 x PP 35 layout on
# 2520 Selene GPUs at 163 (Narayanan et al. 2021 Table 1; registry case narayanan-529.6b-2520,
# check-only, -1.8 % on the A100 kernel fractions). The engine models the schedule difference
# (1F1B against interleaved, batch 1920 against 2520); what is left is the
# stack's own loss, FITTED on the 280-node row: 0 / 0.20 / 0.30 / 0.33 / 0.35 give -23.2 /
# -9.0 / -1.9 / +0.3 / +1.7 %. UNCERTAIN for later Megatron-DeepSpeed: BLOOM 176B (2022
# BigScience fork, not expressible: Omni-Path) comes out -17 % without the overhead and +9 %
# with it when run on a DGX A100 network in place of its own (4 x 100 Gb/s per node), so a
# 2022 DeepSpeed run may lose less.
DEEPSPEED_A100_OVERHEAD = 0.33

STACK_LOSSES[(DEEPSPEED_MEGATRON, "ampere")] = {
    **STACK_LOSSES[(MEGATRON_2022, "ampere")],
    "overhead": DEEPSPEED_A100_OVERHEAD,
    "calibration": (
        "Megatron-LM 2022's A100 kernel fractions (DeepSpeed runs Megatron's layers) plus a "
        "DeepSpeed overhead of 33 % of kernel time, fitted on MT-NLG 530B 280-node row "
        "(Smith et al. 2022 Sec. 2.4, 1 run, 2240 A100: +0.3 %), the gap between MT-NLG's "
        "126 TFLOP/s and Megatron-LM's 163 with the same model and layout on Selene (Narayanan "
        "et al. 2021) left after the schedule and batch difference. The 350- and 420-node rows "
        "check it (-0.9 % / -3.8 %); BLOOM 176B suggests a 2022 DeepSpeed loses less "
        "(UNCERTAIN)."
    ),
}

# Host time of one eager MoE layer per micro-batch (forward, backward and recompute), beyond the
# routed experts' own operations (HOST_S_PER_EXPERT_OP each): the attention block, router, EP
# preprocess, dispatcher, permute and shared expert as the host issues them. FITTED on the
# baseline row of NVIDIA's DeepSeek-V3 GB200 write-up (494.46 TFLOP/s per GPU, MXFP8, TP1 PP8
# VPP4 EP32, registry family megatron-lm-deepseek-v3-gb200): 20 / 25 / 30 ms give -30.0 /
# -14.2 / +1.7 %. It is the DeepSeek-V3 layer's (MLA, group-limited sigmoid router, one
# shared expert); other MoE layer structures are taken to cost the same (UNCERTAIN).
EAGER_MOE_LAYER_HOST_US = 29_600.0

STACK_LOSSES[(NEMO_EAGER_MOE_2025, "blackwell")] = {
    **STACK_LOSSES[(NEMO_BLACKWELL_2025, "blackwell")],
    "moe_layer_host_us": EAGER_MOE_LAYER_HOST_US,
    "calibration": (
        "Kernels and losses of nemo-2025-blackwell; the MoE layers' host time (29.6 ms per "
        "layer and micro-batch beyond the routed experts' 25 us per operation) fitted on the "
        "Megatron-LM DeepSeek-V3 GB200 MXFP8 baseline run (1 run, 256 GPUs, 494 TFLOP/s). "
        "Cross-check, not fitted: the DGX Cloud v25.05 DeepSeek-V3 BF16 runs on 128-512 GB200 "
        "(NeMo 25.04, TP2 EP16-32). The host time is DeepSeek-V3's layer (MLA, sigmoid "
        "router, one shared expert); other MoE layers are taken to cost the same (UNCERTAIN)."
    ),
}
