"""Editor form codec (generated from the schema), drafts, revisions, diff, revert, clone and
import from JSON / CSV / XLSX."""

import csv
import io
import json
from pathlib import Path

import pytest
from openpyxl import Workbook

from models_engine.spec import design_to_dict, parse_design
from studio.designs.editor.codec import (
    form_to_rows,
    form_to_spec,
    list_add,
    list_remove,
    rows_to_form,
    spec_to_form,
)
from studio.designs.models import Design, DesignDraft
from tests.conftest import EXAMPLES, example_spec

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json"))


def _canonical(path: Path) -> dict:
    return design_to_dict(parse_design(json.loads(path.read_text())))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_example_round_trips_through_the_editor_form(path):
    canonical = _canonical(path)
    assert design_to_dict(parse_design(form_to_spec(spec_to_form(canonical)))) == canonical


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_example_round_trips_through_spreadsheet_rows(path):
    canonical = _canonical(path)
    rows = form_to_rows(spec_to_form(canonical))
    assert design_to_dict(parse_design(form_to_spec(rows_to_form(rows)))) == canonical


def test_text_that_does_not_parse_is_kept_for_the_validator_to_name():
    form = spec_to_form(_canonical(EXAMPLE_FILES[0]))
    form["compute.gpu_count"] = "lots"
    spec = form_to_spec(form)
    assert spec["compute"]["gpu_count"] == "lots"
    with pytest.raises(Exception) as info:
        parse_design(spec)
    assert any(e["path"] == "compute.gpu_count" for e in info.value.errors)


def test_list_items_are_added_and_removed_with_renumbering():
    form = spec_to_form(_canonical(EXAMPLES / "two-region-hierarchical.json"))
    kinds = [t["kind"] for t in form_to_spec(form)["storage"]["tiers"]]
    grown = list_add(form, "storage.tiers")
    assert len(form_to_spec(grown)["storage"]["tiers"]) == len(kinds) + 1
    shrunk = list_remove(grown, "storage.tiers", 0)
    assert [t["kind"] for t in form_to_spec(shrunk)["storage"]["tiers"]][: len(kinds) - 1] == (
        kinds[1:]
    )


@pytest.mark.django_db
class TestEditorPages:
    def test_invalid_save_keeps_the_draft_and_names_the_field(self, client, team_a, design_in):
        alice, _ = team_a
        design = design_in(alice, team_a[1])
        client.force_login(alice)
        form = spec_to_form(design.latest_revision.spec)
        form["compute.gpu_count"] = "60"
        response = client.post(f"/designs/{design.pk}/edit/", {**form, "message": "oops"})
        assert response.status_code == 422
        assert "multiple of" in response.content.decode()
        assert design.revisions.count() == 1
        draft = DesignDraft.objects.get(design=design, user=alice)
        assert draft.form_data["compute.gpu_count"] == "60"
        # Reloading the editor restores the draft, not the saved revision.
        page = client.get(f"/designs/{design.pk}/edit/").content.decode()
        assert 'value="60"' in page and "draft-banner" in page

    def test_live_validation_returns_field_errors_out_of_band(self, client, team_a, design_in):
        alice, alpha = team_a
        design = design_in(alice, alpha)
        client.force_login(alice)
        form = spec_to_form(design.latest_revision.spec)
        form["workload.attention_heads"] = "0"
        response = client.post(
            f"/designs/{design.pk}/edit/validate/", form, headers={"HX-Request": "true"}
        )
        body = response.content.decode()
        assert response.status_code == 200
        assert 'id="err-f-workload-attention-heads" hx-swap-oob="true"><li>' in body
        assert 'id="quick-look" hx-swap-oob="true"' in body

    def test_valid_save_creates_a_revision_and_clears_the_draft(self, client, team_a, design_in):
        alice, alpha = team_a
        design = design_in(alice, alpha)
        client.force_login(alice)
        form = spec_to_form(design.latest_revision.spec)
        form["compute.gpu_count"] = "512"
        form["workload.parallelism.dp"] = "256"  # tp1 x pp1 x dp256 x cp2 = 512
        client.post(f"/designs/{design.pk}/edit/validate/", form)
        response = client.post(f"/designs/{design.pk}/edit/", {**form, "message": "grow"})
        assert response.status_code == 302
        latest = design.latest_revision
        assert latest.number == 2 and latest.spec["compute"]["gpu_count"] == 512
        assert not DesignDraft.objects.filter(design=design).exists()

    def test_viewer_cannot_save_or_autosave(self, client, make_member, team_a, design_in):
        alice, alpha = team_a
        design = design_in(alice, alpha)
        viewer, _ = make_member("val", "Alpha", role="viewer")
        client.force_login(viewer)
        form = spec_to_form(design.latest_revision.spec)
        assert client.get(f"/designs/{design.pk}/edit/").status_code == 200
        assert client.post(f"/designs/{design.pk}/edit/", form).status_code == 403
        assert client.post(f"/designs/{design.pk}/edit/validate/", form).status_code == 403

    def test_diff_revert_and_clone(self, client, team_a, design_in):
        from studio.designs import services

        alice, alpha = team_a
        design = design_in(alice, alpha)
        spec = dict(design.latest_revision.spec)
        spec["compute"] = {**spec["compute"], "gpu_count": 512}
        spec["workload"] = {
            **spec["workload"],
            "parallelism": {**spec["workload"]["parallelism"], "dp": 256},
        }
        services.design_revision_create(actor=alice, design=design, spec=spec, message="grow")
        client.force_login(alice)
        page = client.get(f"/designs/{design.pk}/diff/?from=1&to=2").content.decode()
        assert "<code>compute.gpu_count</code>" in page
        client.post(f"/designs/{design.pk}/revert/", {"revision": "1"})
        latest = design.latest_revision
        assert latest.number == 3 and latest.spec == design.revisions.get(number=1).spec
        client.post(f"/designs/{design.pk}/clone/", {"name": "Copy"})
        clone = Design.objects.get(name="Copy")
        assert clone.latest_revision.spec == latest.spec
        assert client.get(f"/designs/{design.pk}/diff/?from=99").status_code == 404


def _csv_bytes(spec: dict) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["path", "value"])
    writer.writerows(form_to_rows(spec_to_form(spec)))
    return out.getvalue().encode()


def _xlsx_bytes(spec: dict) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.append(["path", "value"])
    for path, value in form_to_rows(spec_to_form(spec)):
        sheet.append([path, value])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["json", "csv", "xlsx"])
def test_import_design_from_file(client, team_a, kind):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from studio.designs import services

    alice, alpha = team_a
    project = services.project_create(actor=alice, team=alpha, name="Imports")
    spec = _canonical(EXAMPLES / "dgx-h100-superpod-4su.json")
    payload = {
        "json": lambda: json.dumps(spec).encode(),
        "csv": lambda: _csv_bytes(spec),
        "xlsx": lambda: _xlsx_bytes(spec),
    }[kind]()
    client.force_login(alice)
    response = client.post(
        f"/projects/{project.pk}/designs/import/",
        {
            "import-name": f"From {kind}",
            "import-file": SimpleUploadedFile(f"design.{kind}", payload),
        },
    )
    assert response.status_code == 302, response.content.decode()[-1500:]
    assert Design.objects.get(name=f"From {kind}").latest_revision.spec == spec


@pytest.mark.django_db
def test_import_with_a_bad_value_names_the_field_and_saves_nothing(client, team_a):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from studio.designs import services

    alice, alpha = team_a
    project = services.project_create(actor=alice, team=alpha, name="Imports")
    spec = example_spec()
    spec["compute"]["gpu_count"] = 0
    client.force_login(alice)
    response = client.post(
        f"/projects/{project.pk}/designs/import/",
        {
            "import-name": "Bad",
            "import-file": SimpleUploadedFile("bad.json", json.dumps(spec).encode()),
        },
    )
    assert response.status_code == 400
    assert "compute.gpu_count" in response.content.decode()
    assert not Design.objects.filter(name="Bad").exists()


@pytest.mark.django_db
def test_design_from_a_catalog_system_preset(client, team_a):
    from studio.designs import services

    alice, alpha = team_a
    project = services.project_create(actor=alice, team=alpha, name="Presets")
    client.force_login(alice)
    response = client.post(
        f"/projects/{project.pk}/designs/from-system/",
        {
            "system-system": "gb200-nvl72-rack",
            "system-systems": "4",
            "system-name": "Four NVL72 racks",
        },
    )
    assert response.status_code == 302
    spec = Design.objects.get(name="Four NVL72 racks").latest_revision.spec
    assert spec["compute"]["gpu_count"] == 288
    domain = spec["compute"]["nvlink_domain"]
    assert (domain["kind"], domain["gpus"], domain.get("topology")) == ("nvl72", 72, None)
    assert spec["facility"]["cooling"] == "direct-to-chip"
    response = client.post(
        f"/projects/{project.pk}/designs/from-system/",
        {
            "system-system": "no-such",
            "system-systems": "0",
            "system-name": "x",
        },
    )
    assert response.status_code == 400
