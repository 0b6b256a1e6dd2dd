"""`python -m models_engine evaluate|schema`: results as JSON, errors that name the field."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "models_engine", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_evaluate_prints_every_engine_as_json():
    result = _run("evaluate", "examples/h100-256-onprem-starter.json", "--compact")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    for key in (
        "performance",
        "fabric",
        "storage",
        "facility",
        "reliability",
        "regions",
        "cost",
        "security",
        "headline",
    ):
        assert out[key], key
    assert out["fabric"]["bom"] and out["security"]["checks"]


def test_an_invalid_design_exits_1_naming_the_field(tmp_path):
    doc = json.loads((ROOT / "examples" / "h100-256-onprem-starter.json").read_text())
    doc["compute"]["gpu_count"] = 250
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    result = _run("evaluate", str(bad))
    assert result.returncode == 1 and result.stdout == ""
    assert "compute.gpu_count" in result.stderr


def test_validate_checks_without_evaluating(tmp_path):
    ok = _run("validate", "examples/two-region-hierarchical.json")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("ok: 2048 x") and "2 site(s)" in ok.stdout
    doc = json.loads((ROOT / "examples" / "h100-256-onprem-starter.json").read_text())
    doc["compute"]["gpu_count"] = 250
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    result = _run("validate", str(bad))
    assert result.returncode == 1 and "compute.gpu_count" in result.stderr
    assert _run("validate", str(tmp_path / "missing.json")).returncode == 2


def test_an_unreadable_file_exits_2(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert _run("evaluate", str(broken)).returncode == 2
    assert _run("evaluate", str(tmp_path / "missing.json")).returncode == 2


def test_schema_prints_the_json_schema():
    result = _run("schema")
    schema = json.loads(result.stdout)
    assert result.returncode == 0 and schema["$schema"].endswith("2020-12/schema")
    assert "workload" in schema["properties"]
