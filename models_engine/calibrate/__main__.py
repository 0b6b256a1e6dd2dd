"""`python -m models_engine.calibrate --out FILE`: measure this GPU's kernels (see __init__)."""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from models_engine.calibrate import SCHEMA_VERSION
from models_engine.calibrate.shapes import FULL, TINY
from models_engine.calibrate.summary import format_summary, summarise
from models_engine.calibrate.timing import REPS, WARMUP

FLOPS_CONVENTION = (
    "block model FLOPs/layer = 72*h^2*tokens + 6*seq*h*tokens (6 x 12h^2 weights + causal "
    "attention fwd+bwd); GEMM FLOPs = 2MNK; attention fwd FLOPs = 4*b*heads*s*(s/2)*d (causal "
    "half), bwd = 2.5 x fwd"
)
SMI_QUERY = (
    "name,clocks.current.sm,clocks.max.sm,clocks.current.memory,power.draw,power.limit,"
    "temperature.gpu,utilization.gpu"
)
NO_TORCH = (
    "error: the calibration tool needs PyTorch with a CUDA GPU (pip install torch); "
    "the engine itself never does. Use --tiny to check the tool on a CPU."
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m models_engine.calibrate",
        description="Measure GEMM, attention, HBM and GPT-block efficiency on this GPU and "
        "write a JSON a team imports into its catalog as the GPU's efficiency curves.",
    )
    parser.add_argument("--out", required=True, help="where to write the JSON")
    parser.add_argument(
        "--tiny", action="store_true", help="tiny shapes (seconds, also on a CPU): a smoke test"
    )
    parser.add_argument(
        "--only",
        choices=("experts", "head-dims", "flex", "cudnn-sinks"),
        help="measure only this part (experts: MoE expert GEMMs; head-dims: attention at head "
        "dim 64 and 128; flex: PyTorch FlexAttention, causal and sliding window, against SDPA; "
        "cudnn-sinks: cuDNN fused attention with a learnable sink and a window, needs "
        "nvidia-cudnn-frontend)",
    )
    parser.add_argument("--no-compile", action="store_true", help="skip the torch.compile block")
    return parser


def nvidia_smi() -> str | None:
    try:
        done = subprocess.run(
            ["nvidia-smi", f"--query-gpu={SMI_QUERY}", "--format=csv"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def _meta(torch, tiny: bool, device: str) -> dict:
    on_gpu = device == "cuda"
    properties = torch.cuda.get_device_properties(0) if on_gpu else None
    return {
        "tool": "models_engine.calibrate",
        "schema_version": SCHEMA_VERSION,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": device,
        "tiny": tiny,
        "reps": REPS,
        "warmup": WARMUP,
        "flops_convention": FLOPS_CONVENTION,
        "gpu_name": properties.name if properties else "cpu",
        "sm_count": properties.multi_processor_count if properties else None,
        "total_mem_gib": round(properties.total_memory / 2**30, 1) if properties else None,
        "cudnn": torch.backends.cudnn.version() if on_gpu else None,
        "nvidia_smi_start": nvidia_smi(),
    }


def _section(doc: dict, name: str, measure) -> None:
    """One section; a failure is recorded in `errors` and the others still run."""
    try:
        doc[name] = measure()
    except Exception as exc:  # any failure of one measurement is reported, the rest still run
        doc[name] = []
        doc["errors"].append(f"{name}: {type(exc).__name__}: {exc}"[:500])
    print(f"  {name}: {len(doc[name])} rows", file=sys.stderr, flush=True)


def measure_only(torch, tiny: bool, part: str) -> dict:
    """One part only (a short run on a GPU already calibrated otherwise)."""
    from models_engine.calibrate import measure_attention as attention

    device = "cuda" if torch.cuda.is_available() else "cpu"
    began = time.perf_counter()
    doc: dict = {"meta": _meta(torch, tiny, device), "errors": []}
    shapes = TINY if tiny else FULL
    if part == "experts":
        _expert_sections(torch, doc, tiny, torch.bfloat16, device)
    elif part == "flex":
        from models_engine.calibrate import measure_flex as flex

        _section(
            doc,
            "flex_attention",
            lambda: flex.measure_flex(torch, tiny, torch.bfloat16, device, doc["errors"]),
        )
    elif part == "cudnn-sinks":
        from models_engine.calibrate import measure_cudnn_sinks as sinks

        _section(
            doc,
            "cudnn_sinks",
            lambda: sinks.measure_cudnn_sinks(torch, tiny, torch.bfloat16, device, doc["errors"]),
        )
    else:
        _section(
            doc,
            "attention_head_dim",
            lambda: attention.measure_head_dims(
                torch, shapes, torch.bfloat16, device, doc["errors"]
            ),
        )
    doc["meta"]["elapsed_s"] = round(time.perf_counter() - began, 1)
    doc["meta"]["nvidia_smi_end"] = nvidia_smi()
    return doc


def measure(torch, tiny: bool, compile_block: bool) -> dict:
    from models_engine.calibrate import measure_attention as attention
    from models_engine.calibrate import measure_block as block
    from models_engine.calibrate import measure_gemm as gemm
    from models_engine.calibrate import measure_memory as memory

    device = "cuda" if torch.cuda.is_available() else "cpu"
    shapes = TINY if tiny else FULL
    dtype = torch.bfloat16
    began = time.perf_counter()
    doc: dict = {"meta": _meta(torch, tiny, device), "errors": []}
    errors = doc["errors"]
    _section(doc, "hbm", lambda: memory.measure_copies(torch, shapes, device))
    _section(doc, "elementwise", lambda: memory.measure_elementwise(torch, shapes, dtype, device))
    _section(doc, "gemm", lambda: gemm.measure_layer_gemms(torch, shapes, dtype, device))
    _section(
        doc, "attention", lambda: attention.measure_attention(torch, shapes, dtype, device, errors)
    )
    _section(doc, "block", lambda: block.measure_blocks(torch, shapes, dtype, device))
    _expert_sections(torch, doc, tiny, dtype, device)
    doc["meta"]["elapsed_s"] = round(time.perf_counter() - began, 1)
    doc["meta"]["nvidia_smi_after_main"] = nvidia_smi()
    if device == "cuda":
        _gpu_only_sections(torch, doc, shapes, dtype, device, compile_block)
    doc["meta"]["nvidia_smi_end"] = nvidia_smi()
    return doc


def _expert_sections(torch, doc, tiny, dtype, device) -> None:
    from models_engine.calibrate import measure_experts as experts
    from models_engine.calibrate import measure_gemm as gemm

    fp8 = gemm.fp8_supported(torch)
    _section(
        doc,
        "expert_gemm",
        lambda: experts.measure_expert_gemms(torch, tiny, dtype, device, fp8),
    )
    _section(doc, "expert_group", lambda: experts.measure_expert_groups(torch, tiny, dtype, device))


def _gpu_only_sections(torch, doc, shapes, dtype, device, compile_block) -> None:
    from models_engine.calibrate import measure_block as block
    from models_engine.calibrate import measure_gemm as gemm

    _section(
        doc,
        "block_profile",
        lambda: [
            block.profile_block(torch, shapes, h, dtype, device) for h in shapes.block_hidden_sizes
        ],
    )
    if gemm.fp8_supported(torch):
        _section(doc, "fp8_gemm", lambda: gemm.measure_fp8_gemms(torch, shapes, device))
    if compile_block:
        _section(
            doc, "block_compiled", lambda: block.measure_compiled(torch, shapes, dtype, device)
        )


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        import torch
    except ImportError:
        print(NO_TORCH, file=sys.stderr)
        return 2
    if not args.tiny and not torch.cuda.is_available():
        print(NO_TORCH, file=sys.stderr)
        return 2
    if args.only:
        doc = measure_only(torch, args.tiny, args.only)
    else:
        doc = measure(torch, args.tiny, compile_block=not args.no_compile and not args.tiny)
    Path(args.out).write_text(json.dumps(doc, indent=1))
    print(format_summary(summarise(doc)))
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
