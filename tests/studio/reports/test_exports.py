"""Spreadsheet feed tokens (read-only, one project) and CSV / XLSX exports that are safe to
open in a spreadsheet."""

import csv
import io

import pytest
from openpyxl import load_workbook

from studio.accounts.models import TokenKind
from studio.accounts.tokens import token_create
from studio.reports.renderers import to_csv, to_xlsx

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
    assert rows[0]["design"] == design.name
    assert float(rows[0]["memory_per_gpu_gib (GiB)"]) == pytest.approx(
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
    rows = [{"design": payload, "value": 1.5}]
    assert to_csv(rows).decode().splitlines()[1].startswith(("'", "\"'"))
    sheet = load_workbook(io.BytesIO(to_xlsx(rows))).active
    assert sheet["A2"].data_type == "s" and sheet["A2"].value.startswith("'")
    assert sheet["B2"].value == 1.5
