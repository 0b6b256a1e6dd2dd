"""`workload.software_stack`: the training framework and its generation, with optional
overrides. 'auto' is the stack the GPU's published runs used (the engine's default)."""

from __future__ import annotations

from typing import Literal

from pydantic import model_validator

from ._base import RuleViolations, SpecModel, spec_field

# Closed list, mirrored by models_engine/engines/performance/stacks.py (a test checks it).
StackName = Literal[
    "auto",
    "megatron-lm-2022",
    "megatron-core-te-2024",
    "nemo-2025-blackwell",
    "nemo-2025-moe-eager",
    "maxtext-jax",
    "mosaic-composer-fsdp",
    "torchtitan",
    "deepspeed",
]
# The eager PyTorch stacks, the ones torch.compile changes (mirrored by stacks.py's
# `compilable`; a test checks it).
COMPILABLE_STACKS = ("torchtitan", "mosaic-composer-fsdp")
# The Megatron-Core stacks with the combined 1F1B schedule that overlaps the expert
# all-to-all (mirrored by stacks.py's `combined_1f1b`; a test checks it).
COMBINED_1F1B_STACKS = ("megatron-core-te-2024", "nemo-2025-blackwell", "nemo-2025-moe-eager")


class SoftwareStackChoice(SpecModel):
    """Which framework runs the training step; each has its own efficiency profile."""

    name: StackName = spec_field(
        "auto",
        unit="enum",
        description=(
            "Framework and generation: megatron-lm-2022 (A100-era Megatron-LM), "
            "megatron-core-te-2024 (NeMo / Megatron-Core + Transformer Engine), "
            "nemo-2025-blackwell, nemo-2025-moe-eager (early-2025 NeMo MoE without CUDA "
            "graphs: host-bound MoE layers), maxtext-jax (JAX / XLA), mosaic-composer-fsdp "
            "(llm-foundry, PyTorch FSDP), torchtitan (PyTorch FSDP2), deepspeed (DeepSpeed + "
            "Megatron-LM layers); auto = the stack of the GPU's published runs."
        ),
    )
    attention_backend: Literal["cudnn", "flash", "flex", "unfused"] | None = spec_field(
        None,
        unit="enum",
        description=(
            "Override the attention kernel: cudnn (cuDNN fused attention), flash "
            "(flash-attn / PyTorch SDPA flash, about half cuDNN's rate on H100), flex "
            "(compiled PyTorch FlexAttention: flash's rate; a model with attention sinks "
            "rescales the output after the kernel, as NeMo AutoModel does) or unfused "
            "(softmax as separate kernels); null = the stack's."
        ),
    )
    tp_comm_overlap: bool | None = spec_field(
        None,
        unit="boolean",
        description="Override: overlap tensor-parallel collectives with GEMMs; null = the stack's.",
    )
    dp_comm_overlap: bool | None = spec_field(
        None,
        unit="boolean",
        description=(
            "Override: overlap data-parallel gradient reduction / parameter gathers with "
            "compute; null = the stack's."
        ),
    )
    ep_dispatcher: Literal["all_to_all", "deepep"] | None = spec_field(
        None,
        unit="enum",
        description=(
            "How MoE tokens reach their experts: all_to_all (NCCL all-to-all: one copy per "
            "routed expert, also between nodes) or deepep (DeepEP: one copy per destination "
            "node over the network, forwarded to the experts' GPUs over NVLink, and one copy "
            "per destination GPU inside an NVLink domain); null = the stack's."
        ),
    )
    ep_comm_overlap: bool | None = spec_field(
        None,
        unit="boolean",
        description=(
            "MoE: Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm, "
            "Megatron-Bridge moe_a2a_overlap; stacks "
            + ", ".join(COMBINED_1F1B_STACKS)
            + "): the forward of one micro-batch runs beside the backward of another, each "
            "hiding part of the other's expert all-to-all (the 36.55 % measured to run "
            "concurrently on H100); the warm-up forwards and cool-down "
            "backwards stay exposed. Needs pipeline_schedule 1f1b with pp 1 or "
            "virtual_stages > 1; null or false = the all-to-all is exposed (DualPipe overlaps "
            "it by its own schedule)."
        ),
    )
    fp8_recipe: Literal["delayed", "current"] | None = spec_field(
        None,
        unit="enum",
        description=(
            "How an FP8 run (precision fp8) scales each tensor it casts to 8 bits: delayed "
            "(Transformer Engine's DelayedScaling: the scale comes from an amax history, "
            "updated after each GEMM, NeMo's FP8 default up to early 2025) or current "
            "(Float8CurrentScaling, Transformer Engine 2: the amax of the tensor itself, taken "
            "just before its cast, Megatron-Bridge's FP8-CS); each has its own fixed time per "
            "GEMM call. Only for precision fp8; null = delayed."
        ),
    )
    fsdp_grad_sync: Literal["every_microbatch", "last_microbatch"] | None = spec_field(
        None,
        unit="enum",
        description=(
            "FSDP (zero_stage fsdp) under gradient accumulation: every_microbatch "
            "reduce-scatters each micro-batch's gradients (PyTorch FSDP2's default, "
            "torchtitan) or last_microbatch (set_requires_gradient_sync(False) on the others, "
            "as KempnerForge): one reduce-scatter per step, the unsharded gradients held "
            "across micro-batches in the reduction dtype; null = the stack's (every_microbatch)."
        ),
    )
    master_weights: Literal["fp32", "bf16"] | None = spec_field(
        None,
        unit="enum",
        description=(
            "The weights the optimizer updates: fp32 (mixed precision: an fp32 master with fp32 "
            "Adam moments) or bf16 (pure BF16 training: weights, stored gradients and Adam "
            "moments in BF16, 8 bytes per parameter, as KempnerForge's mixed_precision bf16); "
            "null = the stack's (fp32)."
        ),
    )
    embedding_tp: Literal["vocab_parallel", "replicated"] | None = spec_field(
        None,
        unit="enum",
        description=(
            "Tensor parallelism over the vocabulary: vocab_parallel (each TP rank holds 1/tp "
            "of the input embedding and of every token's logits, Megatron and torchtitan's "
            "loss parallel) or replicated (each TP rank holds the whole input table, which "
            "FSDP then gathers whole, and the logits are gathered whole for the loss, as "
            "KempnerForge); the output head's weights stay split; null = the stack's "
            "(vocab_parallel)."
        ),
    )
    cross_entropy: Literal["fp32", "bf16", "fused"] | None = spec_field(
        None,
        unit="enum",
        description=(
            "How the loss over the output logits is computed (eager PyTorch stacks: "
            + ", ".join(COMPILABLE_STACKS)
            + "), which sets the memory it holds at its peak: fp32 (PyTorch's cross-entropy "
            "on the logits cast to fp32, torchtitan: 12 bytes per logit value), bf16 (on the "
            "bf16 logits, as KempnerForge and NeMo AutoModel: 8 bytes) or fused (a fused "
            "kernel that keeps only the bf16 logits and its gradient, flash-attn's as "
            "llm-foundry's default: 4 bytes); Megatron stacks use their vocab-parallel loss "
            "(6 bytes); null = the stack's (torchtitan fp32, mosaic-composer-fsdp fused)."
        ),
    )
    compiled: bool | None = spec_field(
        None,
        unit="boolean",
        description=(
            "torch.compile the model (eager PyTorch stacks: "
            + ", ".join(COMPILABLE_STACKS)
            + "): fused memory-bound kernels and fewer launches shrink the stack's losses "
            "by torchtitan's measured compile speedup; null or false = eager."
        ),
    )

    @model_validator(mode="after")
    def _stack_choices_apply_to_their_stacks(self) -> SoftwareStackChoice:
        """torch.compile and the cross-entropy kernel are choices of the eager PyTorch stacks
        only (Megatron and JAX stacks compile nothing and use their own loss); the expert
        all-to-all overlap is Megatron-Core's."""
        issues = RuleViolations()
        chosen = {"compiled": bool(self.compiled), "cross_entropy": self.cross_entropy is not None}
        if self.name not in COMPILABLE_STACKS:
            for field, is_set in chosen.items():
                if is_set:
                    issues.add(
                        field,
                        f"{field} applies to the eager PyTorch stacks "
                        f"({', '.join(COMPILABLE_STACKS)}), not to {self.name}; set name to one "
                        f"of them or leave {field} unset",
                        {"name_one_of": list(COMPILABLE_STACKS)},
                    )
        combined = (*COMBINED_1F1B_STACKS, "auto")
        if self.ep_comm_overlap and self.name not in combined:
            issues.add(
                "ep_comm_overlap",
                f"ep_comm_overlap is Megatron-Core's combined 1F1B "
                f"({', '.join(COMBINED_1F1B_STACKS)}), not {self.name}'s; set name to one of "
                "them or leave ep_comm_overlap unset",
                {"name_one_of": list(combined)},
            )
        issues.raise_if_any()
        return self
