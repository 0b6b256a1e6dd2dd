"""Team invitations by link: owners only, role applied, single use, expiry, revoke, audited."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.utils import timezone

from studio.accounts.models import Invitation, Membership, Role
from studio.core.models import AuditEvent

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _invite(client, team, email="carol@example.com", role="editor", days=7):
    return client.post(
        f"/teams/{team.pk}/invitations/", {"email": email, "role": role, "days": days}
    )


def _link_path(response) -> str:
    return re.search(r"https?://[^/\s<]+(/accounts/invitations/[\w-]+/)", response.text)[1]


@pytest.fixture
def invited(team_a):
    alice, alpha = team_a
    response = _invite(_client(alice), alpha)
    assert response.status_code == 200
    return alpha, _link_path(response)


def test_an_owner_invites_with_a_role_and_the_link_is_mailed_and_shown_once(team_a):
    alice, alpha = team_a
    client = _client(alice)
    response = _invite(client, alpha, email="Carol@Example.com", role="editor", days=3)

    assert response.status_code == 200
    path = _link_path(response)
    key = path.rstrip("/").rsplit("/", 1)[1]
    invitation = Invitation.objects.get()
    assert (invitation.email, invitation.role, invitation.invited_by) == (
        "carol@example.com",
        "editor",
        alice,
    )
    assert timedelta(days=2, hours=23) < invitation.expires_at - timezone.now() <= timedelta(3)
    assert key not in invitation.digest  # stored hashed only
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["carol@example.com"]
    assert path in mail.outbox[0].body
    event = AuditEvent.objects.get(action="invitation.create")
    assert event.team == alpha and event.actor == alice and event.data["role"] == "editor"

    # The team page lists it as pending, without the link.
    page = client.get(f"/teams/{alpha.pk}/")
    assert "carol@example.com" in page.text and path not in page.text


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_only_owners_invite(team_a, make_member, role):
    _, alpha = team_a
    member, _ = make_member(f"m-{role}", "Alpha", role=role)
    response = _invite(_client(member), alpha)
    assert response.status_code == 403
    assert not Invitation.objects.exists()
    assert "carol" not in _client(member).get(f"/teams/{alpha.pk}/").text


def test_other_teams_are_404(team_a, team_b, invited):
    alpha, _ = invited
    bob, bravo = team_b
    invitation = Invitation.objects.get()
    bob_client = _client(bob)
    assert _invite(bob_client, alpha).status_code == 404
    url = f"/teams/{alpha.pk}/invitations/{invitation.pk}/revoke/"
    assert bob_client.post(url).status_code == 404
    # An owner of Bravo cannot reach Alpha's invitation through Bravo's URL either.
    url = f"/teams/{bravo.pk}/invitations/{invitation.pk}/revoke/"
    assert bob_client.post(url).status_code == 404
    invitation.refresh_from_db()
    assert invitation.revoked_at is None


def test_a_new_user_signs_up_by_the_link_and_joins_with_the_role(invited):
    alpha, path = invited
    client = Client()
    page = client.get(path)
    assert page.status_code == 200 and "Create your account" in page.text

    response = client.post(
        path,
        {"username": "carol", "password1": "carols-Passw0rd-1", "password2": "carols-Passw0rd-1"},
    )
    assert response.status_code == 302 and response.url == f"/teams/{alpha.pk}/"
    carol = get_user_model().objects.get(username="carol")
    assert carol.email == "carol@example.com"
    assert Membership.objects.get(team=alpha, user=carol).role == Role.EDITOR
    assert client.get(f"/teams/{alpha.pk}/").status_code == 200  # logged in
    invitation = Invitation.objects.get()
    assert invitation.accepted_by == carol and invitation.accepted_at is not None
    event = AuditEvent.objects.get(action="invitation.accept")
    assert event.actor == carol and event.team == alpha and event.data["role"] == "editor"


def test_an_existing_user_joins_with_the_link(invited, team_b):
    alpha, path = invited
    bob, _ = team_b
    client = _client(bob)
    assert "Join as bob" in client.get(path).text
    response = client.post(path)
    assert response.status_code == 302
    assert Membership.objects.get(team=alpha, user=bob).role == Role.EDITOR


def test_a_link_works_once(invited, team_b):
    _, path = invited
    bob, _ = team_b
    assert _client(bob).post(path).status_code == 302
    for client in (Client(), _client(bob)):
        response = client.get(path)
        assert response.status_code == 404 and "not valid any more" in response.text
    response = Client().post(
        path, {"username": "mallory", "password1": "m-Passw0rd-123", "password2": "m-Passw0rd-123"}
    )
    assert response.status_code == 404
    assert not get_user_model().objects.filter(username="mallory").exists()


def test_an_expired_link_is_refused(invited, team_b):
    alpha, path = invited
    bob, _ = team_b
    Invitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert _client(bob).get(path).status_code == 404
    assert _client(bob).post(path).status_code == 404
    assert not Membership.objects.filter(team=alpha, user=bob).exists()


def test_an_owner_revokes_a_pending_invitation(team_a, invited):
    alice, _ = team_a
    alpha, path = invited
    invitation = Invitation.objects.get()
    client = _client(alice)
    response = client.post(f"/teams/{alpha.pk}/invitations/{invitation.pk}/revoke/")
    assert response.status_code == 302
    assert Client().get(path).status_code == 404
    pending = client.get(f"/teams/{alpha.pk}/").text.split('id="invitations"')[1]
    assert "carol@example.com" not in pending and "No pending invitations" in pending
    assert AuditEvent.objects.filter(action="invitation.revoke", team=alpha).exists()


def test_an_unknown_or_garbage_key_is_404(db):
    for key in ("nope", "x" * 500, "%00"):
        assert Client().get(f"/accounts/invitations/{key}/").status_code == 404


def test_sign_up_validates_username_and_password(invited, team_b):
    _, path = invited
    response = Client().post(
        path,
        {"username": "BOB", "password1": "carols-Passw0rd-1", "password2": "carols-Passw0rd-1"},
    )
    assert response.status_code == 400 and "taken" in response.text
    response = Client().post(path, {"username": "carol", "password1": "123", "password2": "123"})
    assert response.status_code == 400
    assert not Invitation.objects.filter(accepted_at__isnull=False).exists()


def test_a_member_is_never_downgraded_by_an_invitation(team_a, make_member):
    alice, alpha = team_a
    response = _invite(_client(alice), alpha, email="alice@example.com", role="viewer")
    assert _client(alice).post(_link_path(response)).status_code == 302
    assert Membership.objects.get(team=alpha, user=alice).role == Role.OWNER
