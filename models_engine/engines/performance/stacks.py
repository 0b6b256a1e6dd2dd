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
and the cast / transpose kernels around each GEMM), fitted with the overhead.

A stack x generation without published runs uses the stack's Hopper entry and says so
(UNCERTAIN) in the result.
"""

MEGATRON_2022 = "megatron-lm-2022"
MEGATRON_CORE_2024 = "megatron-core-te-2024"
NEMO_BLACKWELL_2025 = "nemo-2025-blackwell"
MAXTEXT = "maxtext-jax"
COMPOSER_FSDP = "mosaic-composer-fsdp"

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
        # FSDP mixed precision reduces gradients in the parameter dtype (bf16).
        "grad_reduce_bytes": 2,
        "launch_gaps": True,
    },
}

STACK_NAMES = tuple(SOFTWARE_STACKS)

# Losses per stack x GPU generation: overhead (fraction of kernel time), FP8 fixed time per
# GEMM call (us) and the runs it was fitted on. Filled by the calibration below.
STACK_LOSSES = {
    (MEGATRON_2022, "ampere"): {
        "overhead": 0.0,
        "fp8_gemm_fixed_us": 0.0,
        "calibration": (
            "Korthikanti 2022 Table 5 (8 runs, A100): the A100 kernel fractions were fitted on "
            "these runs with the losses lumped in (no A100 kernel measurement to split them), "
            "so no separate overhead: mean |error| 1.9 %, max 3.2 %."
        ),
    },
}
STACK_LOSSES[(MEGATRON_CORE_2024, "hopper")] = {
    "overhead": 0.13,
    "overhead_fp8": 0.0,
    "fp8_gemm_fixed_us": 114.0,
    "calibration": "placeholder",
}
