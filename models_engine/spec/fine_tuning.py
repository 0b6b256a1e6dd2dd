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
            "full: every weight trains; lora: every linear layer keeps its weights frozen and "
            "trains a rank-r adapter (A: in x r, B: r x out); frozen: the first "
            "`frozen_layers` transformer layers (and the embedding) do not train."
        ),
    )
    lora_rank: int = spec_field(
        16, unit="count", description="LoRA adapter rank r (mode lora).", ge=1, le=65_536
    )
    frozen_layers: int = spec_field(
        0,
        unit="layers",
        description="Leading transformer layers that do not train (mode frozen).",
        ge=0,
        le=10_000,
    )
