"""What one GPU achieves: peak FLOP/s per precision, kernel efficiencies and the software
stack, resolved once per design from the GPU figures and efficiency_data."""

from dataclasses import dataclass

from models_engine.engines.performance.efficiency_data import (
    ATTENTION_LENGTH_RAMP,
    DEFAULT_EFFICIENCY,
    GEMM_TILE_RAMP,
    SKU_EFFICIENCY,
    SOFTWARE_STACKS,
)

TERA = 1e12


@dataclass(frozen=True)
class SoftwareStack:
    name: str
    description: str
    attention_kernel: str  # "flash" or "unfused"
    dropout: bool
    tp_comm_overlap: bool
    dp_comm_overlap: bool
    pp_p2p_overlap: bool
    grad_reduce_bytes: int
    # Pipeline schedules the stack implements (pipeline_schedule.SCHEDULES); `auto` searches
    # only these. Megatron-Core runs 1F1B and its interleaved form.
    pipeline_schedules: tuple[str, ...] = ("1f1b",)


@dataclass(frozen=True)
class ComputeProfile:
    sku: str
    precision: str
    peak_flops: float  # dense, run precision, FLOP/s
    bf16_peak_flops: float
    gemm_fraction: float  # run precision
    bf16_gemm_fraction: float
    gemm_fixed_s: float  # run precision: fixed time per GEMM call
    bf16_gemm_fixed_s: float
    attention_forward_fraction: float
    attention_backward_fraction: float
    hbm_bytes_per_s: float  # catalog bandwidth x achievable fraction
    stack: SoftwareStack
    calibration: str
    warnings: tuple[str, ...] = ()
    m0: float = GEMM_TILE_RAMP["m0"]
    n0: float = GEMM_TILE_RAMP["n0"]
    k0: float = GEMM_TILE_RAMP["k0"]
    attention_length_ramp: float = ATTENTION_LENGTH_RAMP

    @property
    def gemm_input_bytes(self) -> int:
        return 1 if self.precision == "fp8" else 2

    def as_dict(self) -> dict:
        return {
            "sku": self.sku,
            "precision": self.precision,
            "peak_tflops": self.peak_flops / TERA,
            "gemm_fraction_of_peak": self.gemm_fraction,
            "gemm_fixed_us": self.gemm_fixed_s * 1e6,
            "attention_forward_fraction_of_bf16_peak": self.attention_forward_fraction,
            "attention_backward_fraction_of_bf16_peak": self.attention_backward_fraction,
            "hbm_effective_tb_per_s": self.hbm_bytes_per_s / TERA,
            "software_stack": self.stack.name,
            "software_stack_description": self.stack.description,
            "calibration": self.calibration,
            "warnings": list(self.warnings),
        }


def _stack(name: str) -> SoftwareStack:
    return SoftwareStack(name=name, **SOFTWARE_STACKS[name])


def compute_profile(
    gpu, precision: str, overrides: dict | None = None, *, serving: bool = False
) -> ComputeProfile:
    """`overrides` replaces efficiency fields (calibration scripts and tests only).
    `serving`: drop the per-GEMM fixed cost, which is the training framework's (Transformer
    Engine's FP8 scaling / cast / transpose work, eager launches); serving engines fuse
    quantisation and replay CUDA graphs."""
    entry = dict(SKU_EFFICIENCY.get(gpu.id, DEFAULT_EFFICIENCY))
    if overrides:
        entry.update(overrides)
    if serving:
        entry["gemm_fixed_us"] = {key: 0.0 for key in entry["gemm_fixed_us"]}
    bf16_peak = gpu.bf16_dense_tflops * TERA
    warnings = ()
    if precision == "fp8" and not gpu.fp8_dense_tflops:
        warnings = (f"{gpu.name} has no FP8 tensor path: evaluated at BF16 instead",)
        precision = "bf16"
    peak = gpu.fp8_dense_tflops * TERA if precision == "fp8" else bf16_peak
    gemm = entry["gemm"]
    fixed = entry["gemm_fixed_us"]
    return ComputeProfile(
        sku=gpu.id,
        precision=precision,
        peak_flops=peak,
        bf16_peak_flops=bf16_peak,
        gemm_fraction=gemm.get(precision, gemm["bf16"]),
        bf16_gemm_fraction=gemm["bf16"],
        gemm_fixed_s=fixed.get(precision, fixed["bf16"]) * 1e-6,
        bf16_gemm_fixed_s=fixed["bf16"] * 1e-6,
        attention_forward_fraction=entry["attention_forward"],
        attention_backward_fraction=entry["attention_backward"],
        hbm_bytes_per_s=gpu.hbm_bandwidth_tbytes_per_s * TERA * entry["hbm"],
        stack=_stack(entry["stack"]),
        calibration=entry["calibration"],
        warnings=warnings,
    )
