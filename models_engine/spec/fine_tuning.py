"""`workload.fine_tuning`: train only part of the weights (null = every weight trains)."""

from __future__ import annotations

from typing import Literal

from ._base import SpecModel, spec_field


class FineTuning(SpecModel):
    """Which weights train: all (full), low-rank adapters on frozen weights (LoRA), or all
    but the leading transformer layers (frozen)."""

    mode: Literal["full", "lora", "frozen"] = spec_field(
        "full",
        unit="enum",
        description=(
            "full: every weight trains; lora: every base weight stays frozen and the linear "
            "layers lora_targets names train a rank-r adapter (A: in x r, B: r x out); frozen: "
            "the first "
            "`frozen_layers` transformer layers (and the embedding) do not train."
        ),
    )
    lora_rank: int = spec_field(
        16, unit="count", description="LoRA adapter rank r (mode lora).", ge=1, le=65_536
    )
    lora_targets: Literal["all", "attention", "qkv"] = spec_field(
        "all",
        unit="enum",
        description=(
            "Linear layers that get a LoRA adapter (mode lora): all (QKV, attention output, "
            "MLP; the NeMo 2 / Megatron-Bridge LoRA class's default, PEFT match_all_linear), "
            "attention (QKV and the attention output projection) or qkv (the QKV projection "
            "only: NeMo 1's default target_modules ['attention_qkv'] and NeMo 2's Llama 3 "
            "fine-tuning recipes' ['linear_qkv']). Every base weight stays frozen either way."
        ),
    )
    frozen_layers: int = spec_field(
        0,
        unit="layers",
        description="Leading transformer layers that do not train (mode frozen).",
        ge=0,
        le=10_000,
    )
