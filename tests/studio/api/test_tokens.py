"""API tokens: hashed, expiring, scoped, read-only unless made for writing; the tokens page."""

from datetime import timedelta

import pytest
from django.utils import timezone

from studio.accounts.models import ApiToken
from studio.accounts.tokens import token_create

pytestmark = pytest.mark.django_db


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
