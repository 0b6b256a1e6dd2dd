"""The registry of published runs (models_engine/validation) and the validation run over it.

What is asserted:
- the registry is well formed: every case has a source (title, URL), a table and row, a role
  "fit" or "check"; ids are unique; no published run is both fit and check; every run named as
  fitted in efficiency_data.py's `calibration` texts is a "fit" case, and no other case is;
- the published numbers of the fit cases are the ones tests/engine/test_performance_validation.py
  checks (that file keeps its own copy; this test stops the two drifting apart);
- the runner prints fitted and check-only errors per family, and --json gives the same;
- the fitted cases keep today's bounds (those of test_performance_validation.py);
- the check-only set does not regress (bound below, measured today).
"""

import importlib
import importlib.util
import json
import re
from pathlib import Path

import pytest

from models_engine.catalog import load_catalog
from models_engine.validation import load_registry, run_validation
from models_engine.validation.__main__ import main
from models_engine.validation.design import parsed_design
from models_engine.validation.metrics import PublishedMetric
from models_engine.validation.registry import RegistryError, load_family
from models_engine.validation.runner import ErrorStats
from tests.engine import test_performance_validation as published_test

CASES = load_registry()


@pytest.fixture(scope="module")
def report():
    return run_validation(CASES)


def by_id(report):
    return {r.id: r for r in report.results}


# ---- the registry is well formed


def test_every_case_has_a_source_a_row_and_a_role():
    catalog = load_catalog()
    for case in CASES:
        assert case.source.title and case.source.url.startswith("http"), case.id
        assert case.table and case.row, case.id
        assert case.role in ("fit", "check"), case.id
        assert case.gpu_sku in catalog.gpus, case.id
        assert case.model.get("source"), f"{case.id}: model {case.model_name} has no source"
        assert case.stack.published and case.stack.engine, case.id
        assert case.published_step_time_s > 0, case.id


def test_ids_are_unique():
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))


def test_no_published_run_is_both_fit_and_check():
    roles: dict[tuple, set] = {}
    for case in CASES:
        run = (case.source.url, case.source.commit, case.table, case.row)
        roles.setdefault(run, set()).add(case.role)
    assert all(len(r) == 1 for r in roles.values()), [k for k, r in roles.items() if len(r) > 1]


# Each run family the calibration texts name as fitted -> the registry cases it can refer to.
# The last three are named by the software-stack calibration (branch h-stack): once that is
# merged, the runs it fits on must be turned to role "fit" in the registry, and these tests
# say which ones are missing.
CALIBRATION_RUNS = {
    "Korthikanti 2022 Table 5": lambda c: c.family == "korthikanti-2022-a100",
    "Llama 3.1 8B and 70B": lambda c: (
        c.model_name in ("llama3-8b", "llama3-70b") and c.family == "dgxc-h100-recipes"
    ),
    "GPT-3 175B": lambda c: c.model_name == "gpt3-175b" and c.family == "dgxc-h100-recipes",
    "Nemotron-4 15B": lambda c: c.model_name == "nemotron4-15b",
    "340B": lambda c: c.model_name == "nemotron4-340b" and c.family == "dgxc-h100-recipes",
    "Llama 3.1 405B": lambda c: (
        c.model_name == "llama3-405b"
        and c.gpu_sku == "h100-sxm-80gb"
        and c.family.startswith("dgxc")
    ),
    "Llama 3.1 405B GB200": lambda c: (
        c.model_name == "llama3-405b" and c.gpu_sku == "gb200-nvl72" and c.family == "dgxc-v25.05"
    ),
    "MaxText Llama 2 70B": lambda c: c.stack.engine == "maxtext-jax",
    "llm-foundry MPT H100 BF16": lambda c: (
        c.family == "llm-foundry" and c.gpu_sku == "h100-sxm-80gb" and c.precision == "bf16"
    ),
    "deepseek_v3/pretrain": lambda c: c.family == "dgxc-deepseek-v3-mbridge",
    "Megatron-LM DeepSeek-V3 GB200 MXFP8": lambda c: c.family == "megatron-lm-deepseek-v3-gb200",
    "MT-NLG 530B 280-node row": lambda c: c.id == "mt-nlg-530b-2240",
    "torchtitan H100 eager / compile pairs": lambda c: (
        c.family == "torchtitan-h100-2412" and c.precision == "bf16"
    ),
    "Qwen3 30B-A3B EP-overlap A/B": lambda c: c.family == "megatron-bridge-ep-overlap-h100",
    "Megatron-Bridge 25.11 Llama 3 8B FP8-CS": lambda c: (
        c.family == "megatron-bridge-25.11"
        and c.model_name == "llama3-8b"
        and dict(c.stack.options).get("fp8_recipe") == "current"
    ),
}
# Where the engine keeps its calibration texts: per SKU today, per stack x GPU generation
# once software stacks are a workload choice.
CALIBRATION_TABLES = (
    ("models_engine.engines.performance.efficiency_data", "SKU_EFFICIENCY"),
    ("models_engine.engines.performance.stacks", "STACK_LOSSES"),
)


def fitted_texts() -> dict[str, str]:
    """Calibration texts that fit constants (not those that copy another SKU's)."""
    texts = {}
    for module_name, table_name in CALIBRATION_TABLES:
        if importlib.util.find_spec(module_name) is None:
            continue
        table = getattr(importlib.import_module(module_name), table_name, {})
        for key, entry in table.items():
            text = entry.get("calibration", "")
            if re.search(r"\bfitted (on|jointly)", text, re.IGNORECASE):
                texts[f"{table_name}[{key}]"] = text
    return texts


def test_every_run_named_as_fitted_is_a_fit_case():
    texts = fitted_texts()
    assert texts, "no calibration text says what it was fitted on"
    for sku, text in texts.items():
        named = [phrase for phrase in CALIBRATION_RUNS if phrase in text]
        assert named, f"{sku}: calibration names fitted runs the registry does not know"
        for phrase in named:
            fits = [c for c in CASES if CALIBRATION_RUNS[phrase](c) and c.role == "fit"]
            assert fits, f"{sku}: {phrase} is fitted on but has no fit case"
            stated = re.search(re.escape(phrase) + r"[^(]*\([^)]*?(\d+) runs", text)
            if stated and phrase.startswith(("Korthikanti", "Llama 3.1 8B")):
                assert len(fits) == int(stated.group(1)), phrase


def test_only_runs_named_as_fitted_are_fit_cases():
    text = " ".join(fitted_texts().values())
    named = [select for phrase, select in CALIBRATION_RUNS.items() if phrase in text]
    orphans = [c.id for c in CASES if c.role == "fit" and not any(s(c) for s in named)]
    assert not orphans


def test_fit_cases_carry_the_numbers_of_the_existing_validation_test():
    """tests/engine/test_performance_validation.py keeps its own copy of the fitted runs."""
    cases = {c.id: c for c in CASES}
    for size, row in published_test.KORTHIKANTI.items():
        full, seqsel = row[-2:]
        assert cases[f"korthikanti-{size.lower()}-full-recompute"].metric.value == full
        assert cases[f"korthikanti-{size.lower()}-sp-selective"].metric.value == seqsel
    for label, values, gpus in (
        ("8b", published_test.LLAMA_8B, published_test.LLAMA_8B_GPUS),
        ("70b", published_test.LLAMA_70B, published_test.LLAMA_70B_GPUS),
    ):
        for precision, steps in values.items():
            for count, step in zip(gpus, steps, strict=True):
                assert cases[f"dgxc-llama31-{label}-{precision}-{count}"].metric.value == step


def test_registry_holds_enough_check_cases_across_sources_gpus_and_stacks():
    checks = [c for c in CASES if c.role == "check"]
    assert len(checks) >= 40
    assert len({c.source.url for c in checks}) >= 6
    skus = {c.gpu_sku for c in checks}
    assert {
        "a100-sxm-80gb",
        "h100-sxm-80gb",
        "h200-sxm-141gb",
        "b200-sxm-180gb",
        "gb200-nvl72",
    } <= skus
    assert len({c.stack.engine for c in checks}) >= 5
    assert any(c.model.get("moe") for c in checks) and any(not c.model.get("moe") for c in checks)


def test_h200_runs_are_scored_with_the_overrides_their_source_shows(report):
    """KempnerForge's H200 reports: every job of a whole 4-GPU node or more is scored, on
    cuDNN attention (the framework's own profile); jobs on part of a node say why not."""
    results = [r for r in report.results if r.family == "kempnerforge-h200"]
    scored = [r for r in results if r.error is not None]
    assert len(scored) >= 20 and all(r.role == "check" for r in results)
    partial = [r for r in results if r.error is None]
    assert partial and all("gpus_per_node" in r.not_expressible for r in partial)
    case = next(c for c in CASES if c.family == "kempnerforge-h200" and c.gpus >= 4)
    spec, _ = parsed_design(case)
    assert spec.workload.software_stack.attention_backend == "cudnn"
    assert spec.compute.nvlink_domain.gpus == 4


def test_layouts_agree_with_the_gradient_accumulation_the_source_printed():
    """Where a source prints GA: global batch = GA x micro-batch x DP, DP = GPUs / (TP PP CP).
    Catches transcription slips; rows the source itself gets wrong say so in their notes."""
    for case in CASES:
        accumulation = (case.metric.also_published or {}).get("gradient_accumulation")
        if accumulation is None or "Source row inconsistent" in case.notes:
            continue
        layout = case.layout
        dp = case.gpus // (layout.get("tp", 1) * layout.get("pp", 1) * layout.get("cp", 1))
        micro = layout.get("micro_batch_size", 1)
        assert case.global_batch_sequences == accumulation * micro * dp, case.id


def test_a_bad_family_file_names_the_case_and_the_field(tmp_path):
    path = tmp_path / "bad.json"
    doc = {"family": "x", "source": {"title": "t", "url": "https://example.org"}, "cases": []}
    doc["cases"].append({"id": "no-role", "table": "T1", "row": "r"})
    path.write_text(json.dumps(doc))
    with pytest.raises(RegistryError, match=r"no-role.*missing field.*role"):
        load_family(path, {})


# ---- published metrics to step time


def test_throughput_metrics_convert_to_the_step_they_imply():
    tokens, gpus, step = 128 * 8192, 64, 7.5
    per_gpu = PublishedMetric(kind="tokens_per_s_per_gpu", value=tokens / step / gpus)
    total = PublishedMetric(kind="tokens_per_s", value=tokens / step)
    flops = PublishedMetric(
        kind="model_tflops_per_gpu",
        value=tokens * 6e9 / step / gpus / 1e12,
        flops_per_token=6e9,
        convention="6N",
    )
    for metric in (per_gpu, total, flops):
        assert metric.step_time_s(tokens_per_step=tokens, gpus=gpus) == pytest.approx(step)


def test_a_flop_rate_without_its_convention_is_refused():
    with pytest.raises(ValueError, match="flops_per_token and convention"):
        PublishedMetric(kind="model_tflops_per_gpu", value=400.0)
    with pytest.raises(ValueError, match=r"metric\.kind"):
        PublishedMetric(kind="mfu", value=0.4)


# ---- the run


def test_runner_prints_fitted_and_check_only_errors_per_family(capsys):
    assert main(["--family", "korthikanti-2022-a100", "--family", "nemo-24.07-h100"]) == 0
    out = capsys.readouterr().out
    assert "fitted" in out and "check-only" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    # family, runs, not expressible, then n / median / p90 / max for fitted, then check-only
    assert rows["korthikanti-2022-a100"][3] == "8" and rows["korthikanti-2022-a100"][7] == "0"
    assert rows["nemo-24.07-h100"][3] == "0" and rows["nemo-24.07-h100"][7] == "12"
    assert rows["overall"][3] == "8" and rows["overall"][7] == "12"
    # Dense and MoE models apart (both families here are dense: no MoE run scored)
    lines = {line[:32].strip(): line.split() for line in out.splitlines() if line.strip()}
    assert lines["dense models"][4] == "8" and lines["dense models"][8] == "12"
    assert lines["MoE models"][2:] == ["0", "0", "0", "-", "-", "-", "0", "-", "-", "-", "-"]
    # Check-only bias: the median signed error, the runner's own number
    report = run_validation([c for c in CASES if c.family == "nemo-24.07-h100"])
    assert rows["nemo-24.07-h100"][11] == f"{report.overall.check.bias:+.1%}"


def test_bias_is_the_median_signed_error_and_the_magnitudes_stay_absolute():
    stats = ErrorStats.of([-0.30, -0.10, 0.05, 0.02, -0.04])
    assert stats.bias == pytest.approx(-0.04)
    assert stats.median == pytest.approx(0.05)
    assert stats.max == pytest.approx(0.30)
    assert ErrorStats.of([]).bias is None


def test_runner_json_has_both_errors_and_every_case(capsys):
    assert main(["--json", "--family", "torchtitan-a100"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"fitted", "check"} <= set(doc["overall"])
    assert len(doc["results"]) == sum(c.family == "torchtitan-a100" for c in CASES)
    assert all(r["not_expressible"] or r["error"] is not None for r in doc["results"])


def test_an_unknown_family_is_an_error_naming_the_known_ones(capsys):
    assert main(["--family", "nope"]) == 2
    assert "korthikanti-2022-a100" in capsys.readouterr().err


def test_every_case_is_scored_or_says_why_not(report):
    for result in report.results:
        if result.error is None:
            assert result.not_expressible, result.id
    # The runs the existing validation test checks are all expressible today.
    results = by_id(report)
    for case in CASES:
        if case.family in ("korthikanti-2022-a100", "dgxc-h100-recipes"):
            assert results[case.id].error is not None, case.id


def test_fitted_cases_keep_todays_bounds(report):
    """The bounds of tests/engine/test_performance_validation.py: Korthikanti mean |error|
    below Calculon's 3.65 % and max below its 8.87 %; DGX Cloud Llama 3.1 8B/70B within 7 %;
    the other DGX Cloud H100 recipes within 10 %."""
    results = [r for r in report.results if r.role == "fit" and r.error is not None]
    korthikanti = [abs(r.error) for r in results if r.family == "korthikanti-2022-a100"]
    assert sum(korthikanti) / len(korthikanti) < published_test.CALCULON_MEAN_ERROR
    assert max(korthikanti) < published_test.CALCULON_MAX_ERROR
    llama = [r for r in results if r.id.startswith(("dgxc-llama31-8b", "dgxc-llama31-70b"))]
    assert max(abs(r.error) for r in llama) < published_test.DGX_CLOUD_TOLERANCE
    others = [r for r in results if r.family == "dgxc-h100-recipes" and r not in llama]
    assert max(abs(r.error) for r in others) < published_test.OTHER_RECIPES_TOLERANCE


# The check-only runs scored when this registry was written, with their errors:
# tests/engine/validation_check_baseline.json. Measured 2026-11-26 on main 3fe0829 (before the
# software-stack and pipeline-schedule work): 41 runs from 4 sources (Narayanan 2021 Table 1,
# NeMo 24.07, Megatron-Bridge 25.11, DGX Cloud v24.11 Grok-1 and v25.05 DeepSeek-V3); |error|
# median 6.7 %, p90 13.8 %, max 67.3 % (DeepSeek-V3 on GB200, host-bound, a known gap); 72
# cases were not expressible yet. Target (issue 13): median <= 5 %, p90 <= 15 % over >= 40
# check runs from >= 6 sources. The bounds below stop regressions on that fixed set (cases the
# engine learns to express later do not move them); re-measure the file when a case changes
# role or the engine improves (python -m tests.engine.test_validation_registry rewrites it).
# Re-measured on branch h-perf2 over all 78 scored check runs: median 5.1 %, p90 19.5 %.
# Re-measured on branch h-perf3 over all 79 scored check runs (MT-NLG 280-node row now fit, its
# 350- and 420-node rows added as checks): median 5.1 %, p90 15.4 %.
# Re-measured in session 6 after entering DeepSeek-V3's attention as MLA and the DGX Cloud
# DeepSeek-V3 layouts as published (EP 64, expert_tp 1), with the MXFP8 fixed time refitted on
# its fit case: median 5.4 %, p90 16.1 % (faithful inputs moved those rows 1-4 points faster).
# Re-measured in session 13 when the four Megatron-Bridge 25.11 Llama 3 8B FP8-CS runs became
# the fit cases of the current-scaling FP8 cost (software_stack.fp8_recipe): 139 scored check
# runs, median 5.5 %, p90 21.7 % (143 runs before: 6.0 % / 21.6 %).
BASELINE_FILE = Path(__file__).parent / "validation_check_baseline.json"
BASELINE = json.loads(BASELINE_FILE.read_text())
MARGIN = 0.005  # half a percentage point over the measured median / p90


def test_check_only_errors_do_not_regress(report):
    results = by_id(report)
    baseline = BASELINE["errors"]
    unscored = [i for i in baseline if results[i].error is None or results[i].role != "check"]
    assert not unscored, f"baseline check cases no longer scored as check: {unscored}"
    now = ErrorStats.of([results[i].error for i in baseline])
    then = ErrorStats.of(list(baseline.values()))
    overall = report.overall.check
    print(
        f"\ncheck-only, baseline set: n {now.n}, median {now.median:.1%} (was {then.median:.1%}), "
        f"p90 {now.p90:.1%} (was {then.p90:.1%}); all scored: n {overall.n}, median "
        f"{overall.median:.1%}, p90 {overall.p90:.1%} (target median 5 %, p90 15 %)"
    )
    assert now.median <= then.median + MARGIN
    assert now.p90 <= then.p90 + MARGIN
    assert overall.n >= len(baseline)


def test_runner_counts_the_cases_it_cannot_express_by_reason(capsys):
    assert main(["--family", "llama3-paper"]) == 0
    out = capsys.readouterr().out
    assert "not expressible yet" in out
    assert re.search(r"\n\s+3  spec rejects it: workload.software_stack.name", out)


def write_baseline(measured: str) -> None:
    """Re-measure the check-only baseline (run this module as a script)."""
    report = run_validation(CASES)
    scored = [r for r in report.results if r.role == "check" and r.error is not None]
    errors = {r.id: round(r.error, 4) for r in scored}
    doc = {**BASELINE, "measured": measured, "errors": errors}
    BASELINE_FILE.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(errors)} check cases written to {BASELINE_FILE}")


if __name__ == "__main__":
    import sys

    write_baseline(" ".join(sys.argv[1:]) or "re-measured")
