"""Measure one GPU's kernel efficiency: `python -m models_engine.calibrate --out gpu.json`.

The performance engine predicts a training step from per-kernel efficiencies (GEMM, attention,
memory-bound kernels) and from named end-to-end losses. Its built-in figures come from published
runs and from measurements on a real H100 and H200; a team with another GPU (or another driver,
clock limit or software stack) measures its own with this tool and imports the JSON into its
catalog as that GPU's efficiency curves.

What it measures, each with CUDA events (3 warm-ups, then the median of 12 timed groups of about
2 ms each), on random bf16 data:
- `hbm`: device-to-device copies (bytes read + written) of 256 MiB and 1 GiB;
- `elementwise`: LayerNorm, residual add and tanh-GELU, forward and backward, as a GPT layer runs
  them (the memory-bound kernels);
- `gemm`: the twelve GEMMs of a GPT layer (QKV, projection, MLP up / down; forward, dgrad, wgrad) in
  `nn.Linear` layouts for hidden 2048-12288 and 2048 / 8192 tokens, and an 8192^3 square GEMM;
- `attention`: causal `scaled_dot_product_attention` through PyTorch's flash and cuDNN backends,
  sequence 2048-8192, head dim 128, forward and backward;
- `block`: a plain eager pre-LN GPT block (LN, QKV, SDPA, projection, LN, 4h GELU MLP), forward +
  backward, and `block_profile`: the same block's kernels by class (GEMM, attention, other) from
  the PyTorch profiler, which separates kernel time from launch gaps;
- `fp8_gemm` (GPUs with FP8 tensor cores, `torch._scaled_mm`): the same layer GEMMs in BF16 and FP8;
- `expert_gemm` and `expert_group` (measure_experts): MoE expert GEMMs with 256-8192 rows, kernel
  time from CUDA-graph replays, and the host time per expert GEMM call (`--only experts`);
- `flex_attention` (`--only flex`, measure_flex): compiled PyTorch FlexAttention, causal and
  sliding-window, with a learnable sink rescaled after the kernel, against SDPA flash / cuDNN;
- `cudnn_sinks` (`--only cudnn-sinks`, measure_cudnn_sinks; needs nvidia-cudnn-frontend):
  cuDNN fused attention through its graph API with and without a learnable sink and a window.

The output's schema is the one of the reference measurements in
`../shared/reference/gpu_microbench/` (and `tests/fixtures/gpu_microbench/`); `meta` records the
GPU, clocks and power from nvidia-smi before and after, PyTorch / CUDA / cuDNN versions and the
FLOP conventions. PyTorch is needed only here, imported when the tool runs: the engine itself
never depends on it.
"""

SCHEMA_VERSION = 1
