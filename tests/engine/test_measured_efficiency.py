"""Importing a GPU's measured kernel efficiency (models_engine/catalog/measured.py) from the
calibration-file schema of the 2026-11-26 H100 / H200 microbenchmarks (fixtures copied from
/work/shared/reference/gpu_microbench/ so CI runs on a clean clone)."""

import copy
import json
from pathlib import Path

import pytest

from models_engine.catalog import load_catalog
from models_engine.catalog.measured import (
    ATTENTION_LENGTH_RAMP,
    GEMM_KERNEL_FIXED_US,
    GEMM_TILE_RAMP,
    MeasurementError,
    read_calibration,
    with_measurement,
)
from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.performance import efficiency_data, evaluate_performance
from models_engine.engines.performance.kernel_data import KERNEL_EFFICIENCY
from models_engine.engines.storage import evaluate_storage_supply
from models_engine.hardware import resolve_gpu
from models_engine.spec import parse_design
from tests.engine.test_performance_validation import llama_70b

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gpu_microbench"
H100 = read_calibration(FIXTURES / "h100-pytorch-2.11-bf16-2026-11-26.json")
H200 = read_calibration(FIXTURES / "h200-pytorch-2.11-bf16-2026-11-26.json")
H100_FP8 = read_calibration(FIXTURES / "h100-fp8-vs-bf16-gemm-2026-11-26.json")
H200_TOOL = read_calibration(FIXTURES / "h200-calibrate-tool-2026-11-26.json")
H100_EXPERTS = read_calibration(FIXTURES / "h100-calibrate-experts-2026-11-26.json")
CATALOG = load_catalog()


def measure(doc, sku="h100-sxm-80gb", fp8_doc=None):
    entry = CATALOG.get("gpus", sku)
    return with_measurement(entry, doc, fp8_doc).measured_efficiency


@pytest.mark.parametrize(
    ("doc", "sku", "builtin"),
    [(H100, "h100-sxm-80gb", "h100-measured"), (H200, "h200-sxm-141gb", "h200-measured")],
)
def test_import_reproduces_the_engines_built_in_measured_profiles(doc, sku, builtin):
    measured = measure(doc, sku, H100_FP8)
    expected = KERNEL_EFFICIENCY[builtin]
    assert measured.gemm["bf16"] == pytest.approx(expected["gemm"]["bf16"], abs=0.002)
    assert measured.gemm["fp8"] == pytest.approx(expected["gemm"]["fp8"], abs=0.002)
    for backend in ("cudnn", "flash"):
        assert measured.attention[backend] == pytest.approx(
            expected["attention"][backend], abs=0.002
        )
    assert measured.hbm_copy == pytest.approx(expected["hbm_copy"], abs=0.002)
    assert measured.hbm == pytest.approx(expected["hbm"], abs=0.002)
    assert measured.launch_gap == pytest.approx(expected["launch_gap"], abs=0.002)
    assert measured.gemm_fixed_us == pytest.approx(expected["gemm_fixed_us"], abs=0.05)
    # The curves behind the figures travel with the entry: one point per measured GEMM.
    assert len(measured.gemm_curve) == len(doc["gemm"])
    # cuDNN attention is about twice PyTorch's flash backend on Hopper (README).
    assert 1.7 < measured.attention["cudnn"][0] / measured.attention["flash"][0] < 2.2


def test_the_calibration_tools_output_imports_and_agrees_with_the_reference_run():
    """`python -m models_engine.calibrate` on an H200 against the reference H200 file (same
    GPU model, same method): GEMM, attention and copy within 6 %; FP8 from the file's own
    `fp8_gemm` rows; launch gaps from its profiled `gap_ms_per_iter`."""
    tool, reference = measure(H200_TOOL, "h200-sxm-141gb"), measure(H200, "h200-sxm-141gb")
    assert tool.gemm["bf16"] == pytest.approx(reference.gemm["bf16"], rel=0.06)
    assert tool.attention["cudnn"][0] == pytest.approx(reference.attention["cudnn"][0], rel=0.06)
    assert tool.hbm_copy == pytest.approx(reference.hbm_copy, rel=0.06)
    assert 1.6 < tool.gemm["fp8"] * 1979 / (tool.gemm["bf16"] * 989) < 1.9
    profiles = H200_TOOL["block_profile"]
    expected_gap = sum(p["gap_ms_per_iter"] / p["kernel_total_ms"] for p in profiles) / 2
    assert tool.launch_gap == pytest.approx(expected_gap, abs=1e-4)


def test_catalog_and_engine_use_the_same_ramps():
    assert GEMM_TILE_RAMP == efficiency_data.GEMM_TILE_RAMP
    assert GEMM_KERNEL_FIXED_US == efficiency_data.GEMM_KERNEL_FIXED_US
    assert ATTENTION_LENGTH_RAMP == efficiency_data.ATTENTION_LENGTH_RAMP


def test_without_fp8_gemms_fp8_is_the_measured_h100_ratio_not_double():
    measured = measure(H100)
    assert measured.gemm["fp8"] / measured.gemm["bf16"] == pytest.approx(0.616 / 0.721, rel=0.01)


def broken(mutate):
    doc = copy.deepcopy(H100)
    mutate(doc)
    return doc


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.pop("gemm"), "gemm"),
        (lambda d: d["gemm"][3].update(tflops=-1.0), "gemm[3].tflops"),
        (
            lambda d: d.update(attention=[a for a in d["attention"] if a["backend"] != "cudnn"]),
            "attention",
        ),
        (lambda d: d["hbm"][0].pop("tb_per_s"), "hbm[0].tb_per_s"),
        (lambda d: d.update(errors=["CUDA out of memory"]), "errors"),
        (lambda d: d.pop("meta"), "meta"),
        (lambda d: d["block_profile"][0].pop("kernel_total_ms"), "block_profile[0]"),
    ],
)
def test_bad_files_name_the_field(mutate, field):
    with pytest.raises(MeasurementError) as error:
        measure(broken(mutate))
    assert error.value.field == field
    assert field in str(error.value)


def test_a_measurement_on_the_wrong_gpu_entry_is_refused():
    """The H100 file against an A100 entry (312 TFLOP/s): GEMMs at 2.3x 'the peak'."""
    with pytest.raises(MeasurementError, match="outside"):
        measure(H100, "a100-sxm-80gb")


def test_unreadable_file_is_a_clear_error(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text("{not json")
    with pytest.raises(MeasurementError, match="file"):
        read_calibration(path)


def step(doc_catalog, sku):
    doc = llama_70b(64, "bf16")
    doc["compute"]["gpu_sku"] = sku
    spec = parse_design(doc)
    fabric = evaluate_fabric(spec, doc_catalog)
    gpu = resolve_gpu(spec.compute, doc_catalog)
    supply = evaluate_storage_supply(spec, doc_catalog, fabric=fabric)
    result = evaluate_performance(spec, gpu, doc_catalog, fabric=fabric, storage_supply=supply)
    return result.to_json()


def catalog_with(doc, sku_id):
    entry = with_measurement(CATALOG.get("gpus", "h100-sxm-80gb"), doc, H100_FP8)
    return CATALOG.with_entries("gpus", [entry.model_copy(update={"id": sku_id})])


def test_imported_measurement_drives_the_step_time():
    """Same H100 entry, its measurement imported as is: the built-in profile's step. Then a
    measurement whose GEMMs run 20 % slower (x 0.8): the step grows by the GEMM share of the
    kernel time x 25 %, so between half of 25 % (GEMMs are most of a 70B step) and 25 %."""
    baseline = step(CATALOG, "h100-sxm-80gb")["step_time_s"]
    as_measured = step(catalog_with(H100, "h100-imported"), "h100-imported")
    assert as_measured["step_time_s"] == pytest.approx(baseline, rel=0.005)
    assert "measured on NVIDIA H100" in as_measured["software_stack"]["kernel_source"]

    def slower(d):
        for row in d["gemm"]:
            row["tflops"] *= 0.8

    slow = step(catalog_with(broken(slower), "h100-slow-gemm"), "h100-slow-gemm")
    growth = slow["step_time_s"] / as_measured["step_time_s"] - 1
    assert 0.125 < growth < 0.25
    compute_growth = slow["breakdown_s"]["compute"] / as_measured["breakdown_s"]["compute"] - 1
    assert 0.15 < compute_growth < 0.25


def test_fixtures_are_the_published_reference_files():
    """The copies are the reference files byte for byte where /work/shared is present."""
    shared = Path("/work/shared/reference/gpu_microbench")
    if not shared.exists():
        pytest.skip("reference directory not on this machine (CI)")
    for reference in shared.glob("*.json"):
        fixture = FIXTURES / reference.name
        assert json.loads(fixture.read_text()) == json.loads(reference.read_text())


def test_graph_replayed_expert_gemms_give_the_gpus_own_fixed_time_per_gemm():
    """A file with MoE expert GEMMs timed from CUDA-graph replays (`calibrate --only experts`)
    sets the GPU's fixed time per GEMM kernel; the built-in H100 figure is what the H100
    expert file gives. Eagerly timed expert rows (the host's launch rate) are not used."""
    with_experts = {**H100, "expert_gemm": H100_EXPERTS["expert_gemm"]}
    measured = measure(with_experts, "h100-sxm-80gb", H100_FP8)
    assert measured.gemm_fixed_us == pytest.approx(GEMM_KERNEL_FIXED_US, abs=0.1)
    eager = [{**r, "bf16_ms": r["bf16_eager_ms"]} for r in H100_EXPERTS["expert_gemm"]]
    eager = [{k: v for k, v in r.items() if k != "bf16_eager_ms"} for r in eager]
    assert measure({**H100, "expert_gemm": eager}).gemm_fixed_us == GEMM_KERNEL_FIXED_US
    slower = copy.deepcopy(with_experts)
    for row in slower["expert_gemm"]:
        row["bf16_ms"] += 0.010  # 10 us more per kernel
    assert measure(slower).gemm_fixed_us == pytest.approx(measured.gemm_fixed_us + 10.0, abs=0.5)


def test_an_imported_fixed_time_reaches_the_engines_gemms():
    """The imported fixed time is what the performance engine adds per GEMM call: a GPU
    measured with a 10 us slower kernel start runs the same small GEMM 10 us slower."""
    from dataclasses import replace
    from types import SimpleNamespace

    from models_engine.engines.performance.compute_profile import compute_profile
    from models_engine.engines.performance.kernels import gemm_time_s

    measured = {**H100, "expert_gemm": H100_EXPERTS["expert_gemm"]}
    slow = copy.deepcopy(measured)
    for row in slow["expert_gemm"]:
        row["bf16_ms"] += 0.010
    h100 = resolve_gpu(SimpleNamespace(custom_gpu=None, gpu_sku="h100-sxm-80gb"), CATALOG)
    times = []
    for doc in (measured, slow):
        kernels = measure(doc, "h100-sxm-80gb", H100_FP8).model_dump()
        profile = compute_profile(replace(h100, measured_efficiency=kernels), "bf16", serving=True)
        times.append(float(gemm_time_s(1024.0, 1536.0, 2048.0, profile)))
    assert times[1] - times[0] == pytest.approx(10e-6, rel=0.1)
