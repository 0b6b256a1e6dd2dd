"""API tokens (hashed, expiring, scoped), spreadsheet feed tokens (read-only, one project) and
CSV / XLSX exports that are safe to open in a spreadsheet."""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone
from openpyxl import load_workbook

from studio.accounts.models import ApiToken, TokenKind
from studio.accounts.tokens import token_create
from studio.reports.renderers import to_csv, to_xlsx
from studio.runs import services as run_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def evaluated(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    return design, run_services.run_execute(run_id=run.pk)


def test_token_is_stored_hashed_and_shown_once(team_a):
    token, key = token_create(actor=team_a[0], name="sheet")
    assert key not in token.digest and token.key_prefix == key[:12]
    assert not ApiToken.objects.filter(digest=key).exists()


def test_api_token_reads_own_team_only_and_read_only_tokens_cannot_write(
    client, team_a, team_b, evaluated
):
    alice, alpha = team_a
    _, key = token_create(actor=alice, name="ro")
    headers = {"Authorization": f"Bearer {key}"}
    projects = client.get("/api/projects/", headers=headers).json()["results"]
    assert [p["name"] for p in projects] == ["Alpha project"]
    response = client.post("/api/projects/", {"team": alpha.pk, "name": "X"}, headers=headers)
    assert response.status_code == 403
    _, write_key = token_create(actor=alice, name="rw", write_enabled=True)
    response = client.post(
        "/api/projects/",
        {"team": alpha.pk, "name": "X"},
        headers={"Authorization": f"Bearer {write_key}"},
    )
    assert response.status_code == 201


def test_expired_or_revoked_tokens_are_refused(client, team_a):
    token, key = token_create(actor=team_a[0], name="old")
    headers = {"Authorization": f"Bearer {key}"}
    assert client.get("/api/projects/", headers=headers).status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert client.get("/api/projects/", headers=headers).status_code == 401


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


def test_token_page_creates_and_revokes(client, team_a, evaluated):
    alice, _ = team_a
    design, _ = evaluated
    client.force_login(alice)
    page = client.post(
        "/account/tokens/",
        {"name": "sheet", "kind": "feed", "project": design.project.pk, "lifetime_days": "30"},
    ).content.decode()
    assert "cs_feed_" in page
    token = ApiToken.objects.get(name="sheet")
    assert token.project == design.project and not token.write_enabled
    client.post("/account/tokens/", {"revoke": token.pk})
    token.refresh_from_db()
    assert token.revoked_at is not None
    response = client.post("/account/tokens/", {"name": "", "kind": "feed", "lifetime_days": "0"})
    assert response.status_code == 400
