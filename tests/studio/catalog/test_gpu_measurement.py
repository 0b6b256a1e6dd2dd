"""A team imports a kernel measurement (the calibration JSON) onto a GPU entry from the catalog
page; its designs on that GPU are then evaluated with the measured efficiencies."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from models_engine.engines.performance.kernel_data import KERNEL_EFFICIENCY
from studio.catalog.models import TeamCatalogEntry
from studio.runs import services as run_services

pytestmark = pytest.mark.django_db

FIXTURE = (
    Path(__file__).resolve().parents[2]
    / "fixtures"
    / "gpu_microbench"
    / "h100-pytorch-2.11-bf16-2026-11-26.json"
)


def upload(client, team, gpu_id: str, document) -> object:
    content = json.dumps(document).encode() if isinstance(document, dict) else document
    return client.post(
        "/catalog/",
        {
            "team": team.pk,
            "form": "measurement",
            "gpu_id": gpu_id,
            "calibration": SimpleUploadedFile("calibration.json", content, "application/json"),
        },
    )


def test_an_imported_measurement_is_stored_and_used_in_the_teams_runs(client, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    response = upload(client, alpha, "h100-sxm-80gb", json.loads(FIXTURE.read_text()))
    assert response.status_code == 302, response.content.decode()[-2000:]
    entry = TeamCatalogEntry.objects.get(team=alpha, kind="gpus", entry_id="h100-sxm-80gb")
    # The import derives what the engine's built-in H100 profile holds (same file, same formulas).
    built_in = KERNEL_EFFICIENCY["h100-measured"]["gemm"]["bf16"]
    assert entry.data["measured_efficiency"]["gemm"]["bf16"] == pytest.approx(built_in, abs=0.002)
    assert entry.data["measured_efficiency"]["gemm_fixed_us"] > 0
    assert "Kernel measurement" in entry.data["sources"][-1]["title"]
    run = run_services.run_execute(
        run_id=run_services.run_enqueue(
            actor=alice, revision=design.latest_revision, dispatch=False
        ).pk
    )
    assert run.status == "done", run.error
    stack = run.results["performance"]["software_stack"]
    assert "measured on NVIDIA H100" in stack["kernel_source"]
    # A second import replaces the first (one team version of the GPU).
    assert (
        upload(client, alpha, "h100-sxm-80gb", json.loads(FIXTURE.read_text())).status_code == 302
    )
    assert TeamCatalogEntry.objects.filter(team=alpha, entry_id="h100-sxm-80gb").count() == 1


def test_a_bad_calibration_file_names_the_field(client, team_a):
    alice, alpha = team_a
    client.force_login(alice)
    document = json.loads(FIXTURE.read_text())
    document.pop("gemm")
    page = upload(client, alpha, "h100-sxm-80gb", document).content.decode()
    assert "calibration.gemm" in page and "non-empty list" in page
    page = upload(client, alpha, "no-such-gpu", json.loads(FIXTURE.read_text())).content.decode()
    assert "gpu_id" in page
    page = upload(client, alpha, "h100-sxm-80gb", b"{oops").content.decode()
    assert "not valid JSON" in page
    assert not TeamCatalogEntry.objects.exists()
