"""Published metrics and the formula that turns each into a step time.

Sources print a step time, a throughput or a FLOP rate; the engine predicts a step time. The
conversion uses only what the case records (global batch x sequence length = tokens per step):

- step_time_s: as printed;
- tokens_per_s_per_gpu: step = tokens per step / (value x GPUs);
- tokens_per_s: step = tokens per step / value;
- model_tflops_per_gpu: step = tokens per step x flops_per_token / (value x 1e12 x GPUs), with
  the source's own FLOP count per token written beside the case (`flops_per_token` and how it
  was derived in `convention`).
"""

from __future__ import annotations

from dataclasses import dataclass

METRIC_KINDS = ("step_time_s", "tokens_per_s_per_gpu", "tokens_per_s", "model_tflops_per_gpu")


@dataclass(frozen=True)
class PublishedMetric:
    kind: str
    value: float
    # How the source counts (MFU/FLOP conventions differ); required for model_tflops_per_gpu.
    convention: str | None = None
    flops_per_token: float | None = None
    # Other figures the source printed for the same row (MFU, TFLOP/s), kept for reference.
    also_published: dict | None = None

    def __post_init__(self) -> None:
        if self.kind not in METRIC_KINDS:
            raise ValueError(f"metric.kind must be one of {list(METRIC_KINDS)}, got {self.kind!r}")
        if self.value <= 0:
            raise ValueError(f"metric.value must be > 0, got {self.value}")
        if self.kind == "model_tflops_per_gpu" and not (self.flops_per_token and self.convention):
            raise ValueError("metric model_tflops_per_gpu needs flops_per_token and convention")

    def step_time_s(self, *, tokens_per_step: int, gpus: int) -> float:
        if self.kind == "step_time_s":
            return self.value
        if self.kind == "tokens_per_s_per_gpu":
            return tokens_per_step / (self.value * gpus)
        if self.kind == "tokens_per_s":
            return tokens_per_step / self.value
        assert self.flops_per_token is not None  # checked in __post_init__
        return tokens_per_step * self.flops_per_token / (self.value * 1e12 * gpus)
