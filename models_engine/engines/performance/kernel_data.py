"""Kernel efficiencies per GPU: what single kernels sustain on one GPU, before any loss of a real
multi-GPU training step (those are the software stack's, see stacks.py).

Each entry is a fraction of the catalog peak (dense tensor TFLOP/s of the precision, or HBM
TB/s) with its measurement. The H100 and H200 entries are what
`models_engine.catalog.measured.kernel_efficiency` derives from the microbenchmark files in
tests/fixtures/gpu_microbench/ (PyTorch 2.11, CUDA 13.0, cuDNN 9.19, 700 W, 2026-11-26;
/work/shared/reference/gpu_microbench/README.md); tests/engine/test_measured_efficiency.py
checks that the import reproduces them.

Fields:
  gemm            large-GEMM fraction of the dense peak per precision, before the tile ramp
                  (efficiency_data.GEMM_TILE_RAMP), median over the measured GEMMs. MXFP8
                  uses the FP8 figure and NVFP4 MLP GEMMs the FP8 fraction of the FP4 peak
                  unless an entry gives its own (no block-scaled GEMM measured yet,
                  UNCERTAIN); tests/engine/test_performance_precisions.py checks the end-to-end
                  NVFP4 / FP8 step ratio against NVIDIA's published GB200 runs
  attention       fused attention fraction of the BF16 peak per backend (cudnn / flash),
                  forward and backward, before the length ramp (ATTENTION_LENGTH_RAMP);
                  causal FLOPs (half the score matrix)
  hbm_copy        device-to-device copy fraction of catalog HBM bandwidth (streaming reads:
                  GEMM operands, weights and KV cache when serving)
  hbm             memory-bound kernels' fraction of catalog HBM bandwidth: total bytes over
                  total time of the measured LayerNorm, residual add and GELU kernels
  gemm_fixed_us   GPU time of every GEMM kernel beyond its FLOPs (efficiency_data
                  GEMM_KERNEL_FIXED_US, measured on H100 expert GEMMs); the stack's FP8 / MXFP8
                  per-GEMM work (stacks.py) comes on top
  launch_gap      measured share of a plain eager block's step spent between kernels: block
                  fwd+bwd time over the sum of its kernel times (`block_profile`), minus one
"""

from models_engine.engines.performance.efficiency_data import GEMM_KERNEL_FIXED_US

_H100_MEASURED = {
    "gemm": {"bf16": 0.731, "fp16": 0.731, "fp8": 0.619},
    "attention": {"cudnn": (0.621, 0.511), "flash": (0.324, 0.272)},
    "hbm_copy": 0.898,
    "hbm": 0.750,
    "launch_gap": 0.053,
    "gemm_fixed_us": GEMM_KERNEL_FIXED_US,
    "source": (
        "measured on one H100 80GB HBM3 SXM, 700 W (h100-pytorch-2.11-bf16-2026-11-26.json: "
        "96 GPT-layer GEMMs, hidden 2048-12288, and 8192^3: median 0.731 of 989 after the "
        "tile ramp; "
        "cuDNN attention seq 2048-8192 median 0.62 fwd / 0.51 bwd, PyTorch flash 0.32 / 0.27; "
        "LayerNorm + residual + GELU 2.5 TB/s of 3.35; eager block launch gaps 9.4 % "
        "(h=4096) and 1.3 % (h=8192), mean 5.3 %). FP8: h100-fp8-vs-bf16-gemm-2026-11-26.json, "
        "torch._scaled_mm e4m3, 60 GEMMs median 0.619 of 1979 after the tile ramp (1.7x BF16, "
        "not 2x)."
    ),
}

_H200_MEASURED = {
    "gemm": {"bf16": 0.724, "fp16": 0.724, "fp8": 0.619},
    "attention": {"cudnn": (0.632, 0.499), "flash": (0.316, 0.276)},
    "hbm_copy": 0.882,
    "hbm": 0.665,
    "launch_gap": 0.050,
    "gemm_fixed_us": GEMM_KERNEL_FIXED_US,
    "source": (
        "measured on one H200 SXM, 700 W (h200-pytorch-2.11-bf16-2026-11-26.json: GEMM median "
        "0.724 of 989, cuDNN attention 0.63 / 0.50, flash 0.32 / 0.28, element-wise 3.2 TB/s "
        "of 4.8, launch gaps 11.5 % and 0 % (measured -1.4 %, clipped), mean 5.0 %). FP8: the "
        "H100 FP8 / BF16 measurement (same GH100 die and clocks), not measured on H200."
    ),
}

# A100: no microbenchmark file. The fractions are the Korthikanti 2022 fit (efficiency_data
# calibration of the megatron-lm-2022 stack): they lump that stack's losses into the kernels.
_A100_FITTED = {
    "gemm": {"bf16": 0.77, "fp16": 0.77},
    # FlashAttention-2 paper (Dao 2023) Fig. 4: A100 forward 50-70 %, backward 40-50 %.
    "attention": {"cudnn": (0.60, 0.45), "flash": (0.60, 0.45)},
    "hbm_copy": 0.60,
    "hbm": 0.60,
    "launch_gap": 0.0,
    "gemm_fixed_us": 0.0,  # lumped into the fitted fractions
    "source": (
        "not measured: fitted on Korthikanti 2022 Table 5 (8 runs: mean |error| 2.2 %, max "
        "3.8 %) with the losses lumped in; gemm 0.77 (x the tile ramp: ~0.75 = 235 of 312 "
        "TFLOP/s on the 175B-1T GEMMs), just under the 250-280 cuBLAS reaches in isolation; "
        "hbm 0.60 = the 2022 stack's unfused element-wise kernels at 1.2 of 2.04 TB/s."
    ),
}

# Blackwell and custom GPUs: no measurement here. The H100 fractions of the catalog peaks,
# UNCERTAIN; import a measurement (catalog/measured.py) to replace them.
_UNMEASURED = {
    **_H100_MEASURED,
    "source": "not measured: the H100 fractions of this GPU's peaks (UNCERTAIN)",
}

# Blackwell (B200 / GB200 / B300 / GB300): no kernel measurement here. Attention and memory
# kernels: the H100 fractions (UNCERTAIN). GEMM fractions: FITTED on the published GB200 runs
# of the NeMo stack with the Hopper Megatron-Core losses (stacks.py: nemo-2025-blackwell), so
# that importing a measurement (catalog/measured.py) replaces them without double counting.
# The mechanisms added since the fit moved its six runs to -0.9 .. -5.0 % (BF16 -0.9 / -2.5 /
# -2.7, FP8 -3.1 / -4.1 / -5.0). Not refitted: refitting on these six NeMo 25.04 runs alone
# (0.595 / 0.50 brings them within 1.3 %) moves the newer NeMo 25.11 / 26.02 Blackwell runs of
# the registry 3-6 points slower, so one profile for both releases is the open question, not
# the fractions.
# The flash backend (flash-attn 2 / PyTorch SDPA's flash kernel) is measured: FlashAttention-2
# forward at head dim 128, batch 2, sequence 8192 runs 373.9 TFLOP/s on a GB200 (0.153 of 2,450)
# against 329.3 on an H200 (0.333 of 989) measured the same way (Azure AI-benchmarking-guide,
# ND GB200 v6 / ND H200 v5 results): FA-2 has no Blackwell tensor-core path. Ratio 0.459 applied
# to our H200 flash measurement, forward and (ASSUMED) backward.
BLACKWELL_FLASH_VS_H200 = (373.9 / 2450) / (329.3 / 989.4)
# The fitted FP8 GEMM fraction checks against the same files: cuBLASLt FP8, the four large
# shapes, median 2,886 TFLOP/s of 4,900 (0.589) on the GB200 against H200's 1,334 of 1,979
# (0.674): 0.619 x 0.874 = 0.541 in this file's terms, the fit 0.53
# (tests/engine/test_blackwell_kernels.py).
_BLACKWELL_FITTED = {
    **_H100_MEASURED,
    "gemm": {"bf16": 0.61, "fp16": 0.61, "fp8": 0.53},
    "attention": {
        **_H100_MEASURED["attention"],
        "flash": tuple(
            round(f * BLACKWELL_FLASH_VS_H200, 3) for f in _H200_MEASURED["attention"]["flash"]
        ),
    },
    "source": (
        "not measured: GEMM fractions fitted on the NVIDIA DGX Cloud Llama 3.1 405B GB200 "
        "recipes (dgxc-benchmarking v25.05.04 llama3.1/README.md, TP4 PP8 CP2 VP8, 128 / 256 / "
        "512 GPUs, BF16 9.35 / 9.48 / 9.51 s, FP8 6.13 / 6.18 / 6.24 s; model within 1.5 % "
        "when fitted, -0.9 to -5.0 % with the mechanisms added since, not refitted); "
        "FP8 / BF16 per GEMM 0.53 x 4900 / (0.61 x 2450) = 1.74x, as measured on H100 "
        "(1.73x). Flash-attention (FA-2 / SDPA flash) measured at 0.459 of H200's fraction "
        "(Azure AI-benchmarking-guide GB200 / H200 FA-2 forward, backward ASSUMED alike); "
        "cuDNN attention, memory kernels and the fixed time per GEMM kernel: H100's "
        "(UNCERTAIN)."
    ),
}

# Blackwell Ultra (B300 / GB300): the H100 fractions of its peaks (unmeasured, UNCERTAIN), but
# fused attention gains from the doubled special-function-unit (MUFU.EX2) throughput: NVIDIA
# measured ~35 % more FP8 attention forward throughput than Blackwell on DeepSeek-V3 (NVIDIA
# Technical Blog, "Making Softmax More Efficient with NVIDIA Blackwell Ultra", 2026). Derived
# for BF16 attention, taking the softmax exponentials as serial with the two matmuls (the
# blog's picture: tensor cores idle while the SFUs normalise): FP8 forward time M8 + E with
# (M8 + E) / (M8 + E/2) = 1.35 gives E = 1.08 M8; BF16 matmuls take 2 M8, so forward
# (2 + 1.08) / (2 + 0.54) = 1.21x; backward (five matmuls: 5 M8, one exponential per score
# element to rebuild P) (5 + 1.08) / (5 + 0.54) = 1.10x.
ULTRA_ATTENTION_GAIN = (1.21, 1.10)
_BLACKWELL_ULTRA = {
    **_UNMEASURED,
    "attention": {
        # cuDNN's Blackwell kernels gain from the SFUs; FA-2 has no Blackwell tensor-core
        # path: Blackwell's measured flash fractions (ASSUMED the same on Ultra).
        "cudnn": (
            _H100_MEASURED["attention"]["cudnn"][0] * ULTRA_ATTENTION_GAIN[0],
            _H100_MEASURED["attention"]["cudnn"][1] * ULTRA_ATTENTION_GAIN[1],
        ),
        "flash": _BLACKWELL_FITTED["attention"]["flash"],
    },
    "source": (
        "not measured: the H100 fractions of this GPU's peaks (UNCERTAIN); cuDNN attention "
        "x1.21 forward / x1.10 backward for the doubled SFU exponential throughput (NVIDIA "
        "blog: +35 % FP8 attention forward on DeepSeek-V3, derived for BF16); flash attention "
        "(FA-2) as measured on GB200"
    ),
}

# AMD MI300X (CDNA3): no microbenchmark of ours. Published single-kernel measurements taken the
# same way on an MI300X and an H200 (Azure AI-benchmarking-guide result files, ND MI300X v5:
# ROCm 6.x, hipBLASLt, RCCL 2.22.3; ND H200 v5: CUDA 12.6, cuBLASLt), turned into fractions as
# the MI300X / H200 ratio applied to our own H100 / H200 measurements, so that both GPUs are
# read with one method:
#   FP8 GEMM, random init, the four large shapes (8192^3, 16384^3, 32768^3,
#     6144 x 12288 x 12288): median 1,094 TFLOP/s of 2,615 (0.418) against H200's 1,334 of
#     1,979 (0.674): ratio 0.621 -> FP8 0.619 x 0.621 = 0.384.
#   BF16 GEMM: no same-method pair published; the FP8 ratio is applied (ASSUMPTION): 0.731 x
#     0.621 = 0.454 (594 TFLOP/s). Within the published range: 620 TFLOP/s on Llama 70B
#     shapes (SemiAnalysis, "MI300X vs H100 vs H200 Benchmark Part 1: Training", 2024-12-22,
#     on AMD's pre-release image) and under AMD's own best-case 708 TFLOP/s (ROCm blog
#     "Measuring max-achievable FLOPs, part 2", 2025-02-28, one tuned shape).
#   Attention: FlashAttention-2 forward, batch 2, sequence 8192: MI300X 328.6 TFLOP/s at head
#     dim 64 (0.251 of 1,307; 0.271 at head dim 128 by this file's head-dim factor 0.926), H200
#     329.3 at head dim 128 (0.333 of 989, our H200 flash measurement 0.316): 0.271 x 0.316 /
#     0.333 = 0.258 forward; backward not published, taken at H200's backward / forward 0.873
#     (ASSUMPTION): 0.225. ROCm has no cuDNN: Transformer Engine's fused attention runs AMD's
#     CK / FlashAttention kernels, so both backends take these figures.
#   HBM: STREAM copy 4.11 TB/s of 5.3 (0.775) against H200's 4.01 of 4.8 (0.835): ratio
#     0.928 -> copy 0.882 x 0.928 = 0.819, memory-bound kernels 0.665 x 0.928 = 0.617.
#   Launch gaps and the fixed time per GEMM kernel: H100's (ASSUMPTION).
_CDNA3_PUBLISHED = {
    **_H200_MEASURED,
    "gemm": {"bf16": 0.454, "fp16": 0.454, "fp8": 0.384},
    "attention": {"cudnn": (0.258, 0.225), "flash": (0.258, 0.225)},
    "hbm_copy": 0.819,
    "hbm": 0.617,
    "launch_gap": _H100_MEASURED["launch_gap"],
    "source": (
        "published MI300X kernel measurements against an H200 measured the same way (Azure "
        "AI-benchmarking-guide, ND MI300X v5 / ND H200 v5: FP8 hipBLASLt 1,094 vs cuBLASLt "
        "1,334 TFLOP/s on large GEMMs, FlashAttention-2 forward 328.6 vs 329.3, STREAM copy "
        "4.11 vs 4.01 TB/s), applied as ratios to the H100 / H200 measurements: GEMM 0.454 "
        "BF16 (the FP8 ratio, ASSUMPTION) / 0.384 FP8 of peak, attention 0.26 / 0.23 "
        "(backward ASSUMED at H200's ratio), memory-bound kernels 3.3 TB/s of 5.3"
    ),
}

KERNEL_EFFICIENCY = {
    "mi300x-published": _CDNA3_PUBLISHED,
    "blackwell-fitted": _BLACKWELL_FITTED,
    "h100-measured": _H100_MEASURED,
    "h200-measured": _H200_MEASURED,
    "a100-fitted": _A100_FITTED,
    "unmeasured": _UNMEASURED,
    "blackwell-ultra": _BLACKWELL_ULTRA,
}
