"""The spec as a spreadsheet: export any revision (one row per path with unit, description and
allowed range), import a partial sheet as a patch onto a base revision (all or nothing, errors
naming row, column and field), batch variants (a design or a revision per row)."""

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from openpyxl import Workbook

from models_engine import spec_diff
from studio.designs import services
from studio.designs.importing import MAX_CELL_CHARS, MAX_ROWS, ImportFileInvalid
from studio.designs.models import Design, DesignRevision
from studio.designs.spec_sheet import SheetInvalid, node_at, spec_rows
from tests.conftest import example_spec

pytestmark = pytest.mark.django_db
AUTO_PARALLELISM = "two-region-hierarchical"  # parallelism "auto": GPU count alone may change


def _upload(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode())


def _xlsx(rows: list[list]) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_every_spec_path_has_a_row_with_unit_description_and_allowed_range():
    rows = {row["path"]: row for row in spec_rows(example_spec())}
    gpus = rows["compute.gpu_count"]
    assert gpus["value"] == 256 and gpus["unit"] == "GPUs"
    assert gpus["description"] and gpus["allowed"] == "whole number >= 1 and <= 10,000,000"
    assert "one of" in rows["fabric.topology"]["allowed"]
    assert rows["workload.parallelism.sequence_parallel"]["value"] is False
    # Every row's path is a path of the engine's schema.
    assert all(node_at(path) is not None for path in rows)


def test_a_one_row_csv_patch_makes_exactly_one_revision_with_exactly_that_change(team_a, design_in):
    """The issue's case: `compute.gpu_count,8192` on top of the current revision."""
    alice, alpha = team_a
    design = design_in(alice, alpha, slug=AUTO_PARALLELISM)
    base = design.latest_revision
    content = _upload("p.csv", "compute.gpu_count,8192")
    revision, _ = services.design_revision_patch(
        actor=alice, base=base, filename="p.csv", content=content
    )
    assert revision.number == base.number + 1 and design.revisions.count() == 2
    changes = spec_diff(base.spec, revision.spec)
    assert [(c["path"], c["old"], c["new"]) for c in changes] == [("compute.gpu_count", 2048, 8192)]


def test_a_cross_field_rule_is_named_on_the_row_that_broke_it(team_a, design_in):
    """The starter's parallelism is explicit (dp 128): 512 GPUs alone break tp x pp x dp x cp."""
    alice, alpha = team_a
    design = design_in(alice, alpha)
    with pytest.raises(SheetInvalid) as caught:
        services.design_revision_patch(
            actor=alice,
            base=design.latest_revision,
            filename="p.csv",
            content=_upload("p.csv", "compute.gpu_count,512"),
        )
    assert str(caught.value).startswith("row 1, column B (value), workload.parallelism: ")
    both = _upload("p.csv", "compute.gpu_count,512\nworkload.parallelism.dp,256\n")
    revision, _ = services.design_revision_patch(
        actor=alice, base=design.latest_revision, filename="p.csv", content=both
    )
    assert revision.number == 2


def test_patch_onto_an_older_revision_and_a_no_op_sheet(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug=AUTO_PARALLELISM)
    r1 = design.latest_revision
    services.design_revision_patch(
        actor=alice, base=r1, filename="a.csv", content=_upload("a.csv", "compute.gpu_count,512")
    )
    r3, _ = services.design_revision_patch(
        actor=alice,
        base=r1,
        filename="b.csv",
        content=_upload("b.csv", "path,value\nfacility.pue,1.3\n"),
    )
    assert r3.number == 3 and r3.spec["compute"]["gpu_count"] == 2048  # onto r1, not r2
    assert [c["path"] for c in spec_diff(r1.spec, r3.spec)] == ["facility.pue"]
    same, created = services.design_revision_patch(
        actor=alice, base=r3, filename="c.csv", content=_upload("c.csv", "facility.pue,1.3")
    )
    assert same.pk == r3.pk and not created and design.revisions.count() == 3  # none empty


def test_bad_rows_are_named_by_row_column_and_field_and_nothing_is_saved(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    sheet = (
        "path,value,unit\n"
        "compute.gpu_count,-4,GPUs\n"
        "compute.gpu_cuont,8,GPUs\n"
        "fabric.topology,torus,\n"
        "facility.pue,1.2,\n"
    )
    with pytest.raises(SheetInvalid) as caught:
        services.design_revision_patch(
            actor=alice,
            base=design.latest_revision,
            filename="s.csv",
            content=_upload("s.csv", sheet),
        )
    errors = {(e.row, e.column_name, e.field) for e in caught.value.errors}
    assert (3, "path", "compute.gpu_cuont") in {
        (e.row, "path", e.field) for e in caught.value.errors
    }
    assert "row 3, column B (value), compute.gpu_cuont: not a spec path" in str(caught.value)
    assert design.revisions.count() == 1
    # Values are checked once the paths are fixed: each error on its own row.
    fixed = sheet.replace("gpu_cuont", "gpus_per_node")
    with pytest.raises(SheetInvalid) as caught:
        services.design_revision_patch(
            actor=alice,
            base=design.latest_revision,
            filename="s.csv",
            content=_upload("s.csv", fixed),
        )
    errors = {(e.row, e.as_dict()["column"], e.field) for e in caught.value.errors}
    assert (2, "B", "compute.gpu_count") in errors and (4, "B", "fabric.topology") in errors
    assert design.revisions.count() == 1


def test_a_path_given_twice_is_refused_naming_both_rows(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    with pytest.raises(SheetInvalid, match=r"rows 1 and 2"):
        services.design_revision_patch(
            actor=alice,
            base=design.latest_revision,
            filename="d.csv",
            content=_upload("d.csv", "compute.gpu_count,8\ncompute.gpu_count,16\n"),
        )


def test_exported_sheet_reimports_to_the_same_spec(client, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    for fmt in ("csv", "xlsx"):
        exported = client.get(f"/exports/designs/{design.pk}/spec.{fmt}").content
        same, created = services.design_revision_patch(
            actor=alice,
            base=design.latest_revision,
            filename=f"s.{fmt}",
            content=SimpleUploadedFile(f"s.{fmt}", exported),
        )
        assert same.number == 1 and not created, fmt  # every row re-applied: no change
        # And as a full import (a new design from the sheet alone): the same spec hash.
        copy = services.design_create_from_upload(
            actor=alice,
            project=design.project,
            name=f"copy {fmt}",
            filename=f"s.{fmt}",
            content=exported,
        )
        assert copy.latest_revision.spec_hash == design.latest_revision.spec_hash, fmt


def test_spec_export_of_any_revision_and_its_errors(client, team_a, team_b, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug=AUTO_PARALLELISM)
    services.design_revision_patch(
        actor=alice,
        base=design.latest_revision,
        filename="a.csv",
        content=_upload("a.csv", "compute.gpu_count,512"),
    )
    client.force_login(alice)
    for query, gpus in (("?revision=1", "2048"), ("?revision=r2", "512"), ("", "512")):
        text = client.get(f"/exports/designs/{design.pk}/spec.csv{query}").content.decode()
        rows = {r["path"]: r for r in csv.DictReader(io.StringIO(text))}
        assert rows["compute.gpu_count"]["value"] == gpus
        assert list(rows["compute.gpu_count"]) == [
            "path",
            "value",
            "unit",
            "description",
            "allowed",
        ]
    bad = client.get(f"/exports/designs/{design.pk}/spec.csv?revision=9")
    assert bad.status_code == 400 and b"revision: one of" in bad.content
    client.force_login(team_b[0])
    assert client.get(f"/exports/designs/{design.pk}/spec.csv").status_code == 404


def test_variants_become_designs_all_or_nothing(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug=AUTO_PARALLELISM)
    base = design.latest_revision
    sheet = "name,compute.gpu_count,facility.pue\nWide,512,\nEfficient,,1.15\n"
    created = services.design_variants_create(
        actor=alice, base=base, filename="v.csv", content=_upload("v.csv", sheet), mode="designs"
    )
    assert [(r.design.name, r.number) for r in created] == [("Wide", 1), ("Efficient", 1)]
    assert [c["path"] for c in spec_diff(base.spec, created[0].spec)] == ["compute.gpu_count"]
    assert [c["path"] for c in spec_diff(base.spec, created[1].spec)] == ["facility.pue"]
    # A bad cell in any row: nothing is created, every bad cell is named.
    bad = "name,compute.gpu_count\nA,1024\nB,lots\nWide,64\n"
    before = Design.objects.count()
    with pytest.raises(SheetInvalid) as caught:
        services.design_variants_create(
            actor=alice, base=base, filename="v.csv", content=_upload("v.csv", bad), mode="designs"
        )
    text = str(caught.value)
    assert "row 3, column B (compute.gpu_count), compute.gpu_count" in text
    assert "row 4, column A (name)" in text and "Wide" in text
    assert Design.objects.count() == before


def test_variants_as_revisions_of_one_design_from_xlsx(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug=AUTO_PARALLELISM)
    base_utilization = design.latest_revision.spec["economics"]["utilisation"]
    sheet = _xlsx([["compute.gpu_count", "economics.utilisation"], [512, 0.8], [1024, None]])
    created = services.design_variants_create(
        actor=alice,
        base=design.latest_revision,
        filename="v.xlsx",
        content=SimpleUploadedFile("v.xlsx", sheet),
        mode="revisions",
    )
    assert [r.number for r in created] == [2, 3]
    assert [r.spec["compute"]["gpu_count"] for r in created] == [512, 1024]
    assert [r.spec["economics"]["utilisation"] for r in created] == [0.8, base_utilization]
    assert DesignRevision.objects.filter(design=design).count() == 3


def test_variants_header_must_be_spec_paths(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    with pytest.raises(SheetInvalid, match=r"row 1, column B \(gpus\), gpus: not a spec path"):
        services.design_variants_create(
            actor=alice,
            base=design.latest_revision,
            filename="v.csv",
            content=_upload("v.csv", "name,gpus\nA,8\n"),
            mode="designs",
        )


def test_api_patch_and_variants(client, team_a, team_b, make_member, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug=AUTO_PARALLELISM)
    client.force_login(alice)
    url = f"/api/designs/{design.pk}/spec-patch/"
    response = client.post(url, {"file": _upload("p.csv", "compute.gpu_count,8192")})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["revision"]["label"] == "r2" and body["base"]["label"] == "r1"
    assert [(c["path"], c["old"], c["new"]) for c in body["changes"]] == [
        ("compute.gpu_count", 2048, 8192)
    ]
    bad = client.post(url, {"file": _upload("p.csv", "compute.gpu_count,0"), "base_revision": 1})
    assert bad.status_code == 400
    error = bad.json()["errors"][0]
    assert (error["row"], error["column"], error["field"]) == (1, "B", "compute.gpu_count")
    assert client.post(url, {"file": _upload("p.txt", "x")}).status_code == 400
    assert (
        client.post(url, {"file": _upload("p.csv", "a,1"), "base_revision": 7}).status_code == 400
    )
    variants = client.post(
        f"/api/designs/{design.pk}/variants/",
        {"file": _upload("v.csv", "compute.gpu_count\n512\n1024\n"), "mode": "revisions"},
    )
    assert variants.status_code == 201
    assert [r["label"] for r in variants.json()["created"]] == ["r3", "r4"]
    viewer, _ = make_member("vera", "Alpha", role="viewer")
    client.force_login(viewer)
    assert client.post(url, {"file": _upload("p.csv", "compute.gpu_count,8")}).status_code == 403
    client.force_login(team_b[0])
    assert client.post(url, {"file": _upload("p.csv", "compute.gpu_count,8")}).status_code == 404


def test_html_patch_form_redirects_to_the_diff_and_shows_errors(client, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug=AUTO_PARALLELISM)
    client.force_login(alice)
    page = client.get(f"/designs/{design.pk}/").content.decode()
    assert 'id="sheet-patch"' in page and 'id="sheet-variants"' in page and 'id="spec-xlsx"' in page
    url = f"/designs/{design.pk}/spec-patch/"
    ok = client.post(
        url, {"patch-file": _upload("p.csv", "compute.gpu_count,512"), "patch-base_revision": 1}
    )
    assert ok.status_code == 302 and ok.url.endswith(f"/designs/{design.pk}/diff/?from=1&to=2")
    bad = client.post(
        url, {"patch-file": _upload("p.csv", "compute.gpu_count,many"), "patch-base_revision": 2}
    )
    assert bad.status_code == 400
    assert (
        'id="sheet-errors"' in bad.content.decode() and "compute.gpu_count" in bad.content.decode()
    )
    assert design.revisions.count() == 2


def test_a_choice_row_switches_parallelism_to_auto_and_booleans_read_as_typed(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)  # explicit parallelism
    sheet = _xlsx(
        [
            ["path", "value"],
            ["workload.parallelism", "auto"],
            ["compute.gpu_count", 512.0],  # Excel stores every number as a float
            ["storage.checkpoint.incremental", True],
        ]
    )
    revision, _ = services.design_revision_patch(
        actor=alice,
        base=design.latest_revision,
        filename="p.xlsx",
        content=SimpleUploadedFile("p.xlsx", sheet),
    )
    assert revision.spec["workload"]["parallelism"] == "auto"
    assert revision.spec["compute"]["gpu_count"] == 512
    assert revision.spec["storage"]["checkpoint"]["incremental"] is True
    rows = {row["path"]: row for row in spec_rows(revision.spec)}
    assert rows["workload.parallelism"]["value"] == "auto"
    assert "workload.parallelism.tp" not in rows


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("p.csv", "compute.gpu_count,8\n" * (MAX_ROWS + 2), "more than 2,000 rows"),
        ("p.csv", "compute.gpu_count,8\x00\n", "NUL"),
        ("p.csv", "compute.gpu_count," + "9" * (MAX_CELL_CHARS + 1), "longer than 10,000"),
        ("p.json", "{}", "upload a .csv or .xlsx file"),
        ("p.xlsx", "not a zip", "not a readable XLSX"),
        ("p.csv", "\n\n", "holds no rows"),
    ],
)
def test_sheet_imports_keep_the_import_bounds(team_a, design_in, name, content, message):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    with pytest.raises(ImportFileInvalid, match=message):
        services.design_revision_patch(
            actor=alice, base=design.latest_revision, filename=name, content=_upload(name, content)
        )
    assert design.revisions.count() == 1


def test_spec_export_takes_an_api_token_and_a_feed_token(client, team_a, design_in):
    from studio.accounts.models import TokenKind
    from studio.accounts.tokens import token_create

    alice, alpha = team_a
    design = design_in(alice, alpha)
    _, api_key = token_create(actor=alice, name="script", kind=TokenKind.API)
    url = f"/exports/designs/{design.pk}/spec.xlsx"
    response = client.get(url, headers={"Authorization": f"Bearer {api_key}"})
    assert response.status_code == 200 and response.content.startswith(b"PK")
    _, feed = token_create(actor=alice, name="feed", kind=TokenKind.FEED, project=design.project)
    assert client.get(f"{url}?token={feed}").status_code == 200
    assert client.get(url).status_code == 404  # no identity: nothing, not a login page


def test_html_variants_form_creates_designs_and_shows_row_errors(client, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug=AUTO_PARALLELISM)
    client.force_login(alice)
    url = f"/designs/{design.pk}/variants/"
    sheet = "name,compute.gpu_count\n4k,4096\n8k,8192\n"
    data = {"variants-file": _upload("v.csv", sheet), "variants-base_revision": 1}
    ok = client.post(url, {**data, "variants-mode": "designs"})
    assert ok.status_code == 302 and ok.url == f"/projects/{design.project_id}/"
    names = set(design.project.designs.values_list("name", flat=True))
    assert {"4k", "8k"} <= names
    again = {"variants-file": _upload("v.csv", sheet), "variants-base_revision": 1}
    refused = client.post(url, {**again, "variants-mode": "designs"})
    assert refused.status_code == 400
    body = refused.content.decode()
    assert 'id="sheet-errors"' in body and "already has a design named" in body


def test_a_value_guarded_against_formulas_survives_export_and_reimport(client, team_a):
    """A spec name like `=SUM(1)` is exported as `'=SUM(1)` (never a formula) and imported
    back as it was."""
    alice, alpha = team_a
    project = services.project_create(actor=alice, team=alpha, name="Guarded")
    spec = {**example_spec(), "name": "=SUM(1)", "description": "-lean variant"}
    design = services.design_create(
        actor=alice, project=project, name="Guarded", spec=spec, message="t"
    )
    client.force_login(alice)
    for fmt in ("csv", "xlsx"):
        exported = client.get(f"/exports/designs/{design.pk}/spec.{fmt}").content
        if fmt == "csv":
            assert "'=SUM(1)" in exported.decode()
        same, created = services.design_revision_patch(
            actor=alice,
            base=design.latest_revision,
            filename=f"s.{fmt}",
            content=SimpleUploadedFile(f"s.{fmt}", exported),
        )
        assert not created and same.spec["name"] == "=SUM(1)", fmt
