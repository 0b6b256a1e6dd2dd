"""Spreadsheet feed tokens (read-only, one project) and CSV / XLSX exports that are safe to
open in a spreadsheet."""

import csv
import io

import pytest
from openpyxl import load_workbook

from studio.accounts.models import TokenKind
from studio.accounts.tokens import token_create
from studio.reports.renderers import Column, Table, number_format, to_csv, to_xlsx

pytestmark = pytest.mark.django_db


def test_feed_token_opens_one_project_exports_and_nothing_else(client, team_a, evaluated):
    alice, _ = team_a
    design, run = evaluated
    _, key = token_create(actor=alice, name="gsheet", kind=TokenKind.FEED, project=design.project)
    url = f"/exports/projects/{design.project.pk}/designs.csv?token={key}"
    response = client.get(url)
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store" and response["Content-Type"].startswith(
        "text/csv"
    )
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows[0]["Design"] == design.name
    assert float(rows[0]["Memory per GPU (GiB)"]) == pytest.approx(
        run.results["headline"]["memory_per_gpu_gib"]
    )
    assert client.get(f"/exports/runs/{run.pk}/memory.xlsx?token={key}").status_code == 200
    # Not an API credential, not for HTML pages, not for another project.
    assert (
        client.get("/api/projects/", headers={"Authorization": f"Bearer {key}"}).status_code == 401
    )
    assert client.get(f"/projects/{design.project.pk}/?token={key}").status_code == 302
    assert (
        client.get(f"/exports/projects/{design.project.pk + 1}/designs.csv?token={key}").status_code
        == 404
    )


def test_feed_reads_are_audited(client, team_a, evaluated):
    from studio.core.models import AuditEvent

    design, _ = evaluated
    _, key = token_create(actor=team_a[0], name="feed", kind=TokenKind.FEED, project=design.project)
    client.get(f"/exports/projects/{design.project.pk}/designs.csv?token={key}")
    assert AuditEvent.objects.filter(action="feed.read", project=design.project).exists()


def test_another_teams_user_cannot_export(client, team_b, evaluated):
    design, run = evaluated
    client.force_login(team_b[0])
    assert client.get(f"/exports/projects/{design.project.pk}/designs.csv").status_code == 404
    assert client.get(f"/exports/runs/{run.pk}/headline.csv").status_code == 404


@pytest.mark.parametrize("payload", ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\t=1"])
def test_exports_never_carry_a_formula(payload):
    table = Table(
        "t",
        [Column("design", "Design"), Column("value", "Value")],
        [{"design": payload, "value": 1.5}],
    )
    assert to_csv(table).decode().splitlines()[1].startswith(("'", "\"'"))
    sheet = load_workbook(io.BytesIO(to_xlsx(table))).active
    assert sheet["A2"].data_type == "s" and sheet["A2"].value.startswith("'")
    assert sheet["B2"].value == 1.5


@pytest.mark.parametrize(
    ("unit", "value", "expected"),
    [
        ("USD", 18_696_445.77, "#,##0"),
        ("USD", 0.08, "General"),  # '#,##0' would show 0
        ("fraction", 0.486, "0.0%"),
        ("fraction", 0.0004, "General"),  # 0.0% would hide it
        ("s", 14.03, "0.000"),
        ("GPUs", 256, "#,##0"),
        ("", 2.5, "#,##0.00"),
        ("", 0.003, "General"),
    ],
)
def test_number_formats_follow_the_unit_and_never_hide_a_small_value(unit, value, expected):
    assert number_format(unit, value) == expected
