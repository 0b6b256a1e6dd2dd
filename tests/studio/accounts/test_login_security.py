"""Brute force, audit flooding, password reset and change (issue 19, Accounts)."""

import re
from datetime import timedelta
from unittest import mock

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.test import Client
from django.utils import timezone

from studio.accounts.models import ApiToken
from studio.accounts.tokens import token_create
from studio.core.models import AuditEvent

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


def _login(client, username, password):
    return client.post(LOGIN, {"username": username, "password": password})


def _logged_in(client) -> bool:
    return "_auth_user_id" in client.session


@pytest.fixture
def alice(team_a):
    return team_a[0]


def _spies():
    """Spies on the password check itself: the backend's authenticate and the hasher."""
    backend = mock.patch.object(
        ModelBackend, "authenticate", autospec=True, side_effect=ModelBackend.authenticate
    )
    hasher = mock.patch.object(
        MD5PasswordHasher, "verify", autospec=True, side_effect=MD5PasswordHasher.verify
    )
    return backend, hasher


def test_sixth_attempt_within_a_minute_is_refused_without_checking_the_password(alice):
    client = Client()
    backend_patch, hasher_patch = _spies()
    with backend_patch as authenticate, hasher_patch as verify:
        for attempt in range(1, 6):
            response = _login(client, "alice", f"wrong-{attempt}")
            # 1-4: the form again; the 5th failure locks out and says so.
            assert response.status_code == (429 if attempt == 5 else 200)
        assert authenticate.call_count == 5 and verify.call_count == 5
        authenticate.reset_mock()
        verify.reset_mock()

        response = _login(client, "alice", "pw-alice")  # the right password, 6th attempt

        assert response.status_code == 429
        assert authenticate.call_count == 0, "the password must not be checked"
        assert verify.call_count == 0, "the password must not be checked"
    assert not _logged_in(client)
    assert "Too many failed log-ins" in response.text
    assert "reset your password" in response.text


def test_lockout_is_per_username_and_address_and_clears_after_the_cool_off(alice, settings):
    client = Client()
    for attempt in range(5):
        _login(client, "alice", f"wrong-{attempt}")
    assert _login(client, "alice", "pw-alice").status_code == 429

    # Another address may still log in as alice; the locked pair stays locked.
    other = Client(REMOTE_ADDR="10.9.8.7")
    assert _login(other, "alice", "pw-alice").status_code == 302
    assert _logged_in(other)

    # Hammering during the lockout records nothing more (neither extends it nor grows rows).
    failures = AccessAttempt.objects.get(username="alice").failures_since_start
    for _ in range(20):
        _login(client, "alice", "wrong")
    assert AccessAttempt.objects.get(username="alice").failures_since_start == failures

    # The cool-off passes: the lockout lifts.
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1)
    )
    response = _login(client, "alice", "pw-alice")
    assert response.status_code == 302 and _logged_in(client)


def test_api_token_auth_is_unaffected_by_a_lockout(alice):
    _, key = token_create(actor=alice, name="ci")
    client = Client()
    for attempt in range(6):
        _login(client, "alice", f"wrong-{attempt}")
    assert _login(client, "alice", "pw-alice").status_code == 429

    response = Client().get("/api/projects/", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert response.status_code == 200


def test_anonymous_failures_write_a_bounded_number_of_audit_rows(alice, settings):
    client = Client()
    for attempt in range(200):
        _login(client, "alice", f"wrong-{attempt}")
    failed = AuditEvent.objects.filter(action="auth.login_failed")
    assert failed.count() == 1
    assert failed.get().data == {"username": "alice"}
    assert AuditEvent.objects.filter(action="auth.lockout").count() == 1

    # 200 different usernames from one address: at most the per-address quota per window.
    for attempt in range(200):
        _login(client, f"user-{attempt}", "wrong")
    assert failed.count() <= settings.AUDIT_LOGIN_FAILED_PER_IP
    assert AccessAttempt.objects.count() <= 201  # axes' own rows: one per username, expiring

    # The next window writes again.
    AuditEvent.objects.update(created_at=timezone.now() - timedelta(minutes=2))
    _login(client, "alice", "wrong")
    assert failed.filter(created_at__gte=timezone.now() - timedelta(minutes=1)).count() == 1


# ---- password reset --------------------------------------------------------------------------


def test_password_reset_link_works_once(alice, settings):
    assert settings.MAILERS["default"]["BACKEND"] == "django.core.mail.backends.locmem.EmailBackend"
    alice.email = "alice@example.com"
    alice.save()
    _, key = token_create(actor=alice, name="ci")
    client = Client()
    # Lock alice out first: a reset lifts the lockout.
    for attempt in range(5):
        _login(client, "alice", f"wrong-{attempt}")

    response = client.post("/accounts/password/reset/", {"email": "alice@example.com"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/\S+/)", mail.outbox[0].body)[1]

    response = client.get(link)  # Django moves the token into the session
    assert response.status_code == 302
    set_password_url = response.url
    response = client.post(
        set_password_url,
        {"new_password1": "a-new-Passw0rd-2026", "new_password2": "a-new-Passw0rd-2026"},
    )
    assert response.status_code == 302 and response.url == "/accounts/password/reset/done/"
    alice.refresh_from_db()
    assert alice.check_password("a-new-Passw0rd-2026")
    assert AuditEvent.objects.filter(
        action="auth.password_change", actor=alice, data__via="reset"
    ).exists()
    assert not ApiToken.objects.filter(user=alice, revoked_at__isnull=True).exists()
    assert Client().get("/api/projects/", HTTP_AUTHORIZATION=f"Bearer {key}").status_code == 401

    # Used once: the same link is dead, for this client and any other.
    for again in (client, Client()):
        response = again.get(link, follow=True)
        assert "This link is not valid any more" in response.text
        assert "new_password1" not in response.text

    # The lockout was lifted: the new password logs in from the same address.
    assert _login(client, "alice", "a-new-Passw0rd-2026").status_code == 302


def test_password_reset_for_an_unknown_email_sends_nothing_and_says_the_same(alice):
    response = Client().post("/accounts/password/reset/", {"email": "nobody@example.com"})
    assert response.status_code == 302 and response.url == "/accounts/password/reset/sent/"
    assert mail.outbox == []
    assert "Check your email" in Client().get(response.url).text


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, {"BACKEND": "django.core.mail.backends.console.EmailBackend"}),
        (
            {"EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend", "EMAIL_HOST": "x"},
            {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"},
        ),
        (
            {"EMAIL_URL": "smtp+tls://u:p@mail.example.com:587"},
            {
                "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "OPTIONS": {
                    "host": "mail.example.com",
                    "port": 587,
                    "username": "u",
                    "password": "p",
                    "use_tls": True,
                    "use_ssl": False,
                    "timeout": 10,
                },
            },
        ),
    ],
)
def test_email_backend_comes_from_the_environment(monkeypatch, environ, expected):
    from studio.settings import base

    for name in ("EMAIL_URL", "EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert base._mailer() == expected


def test_production_mails_by_smtp_unless_told_otherwise(monkeypatch):
    from studio.settings import base

    for name in ("EMAIL_URL", "EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT"):
        monkeypatch.delenv(name, raising=False)
    mailer = base._mailer(default_backend=base.SMTP_MAIL)
    assert mailer["BACKEND"] == base.SMTP_MAIL
    assert (mailer["OPTIONS"]["host"], mailer["OPTIONS"]["port"]) == ("localhost", 25)


# ---- password change -------------------------------------------------------------------------


def test_password_change_is_audited_and_revokes_tokens_and_other_sessions(team_a, design_in):
    alice, alpha = team_a
    project = design_in(alice, alpha).project
    _, api_key = token_create(actor=alice, name="ci")
    _, feed_key = token_create(actor=alice, name="sheet", kind="feed", project=project)
    feed_url = f"/exports/projects/{project.pk}/designs.csv?token={feed_key}"
    assert Client().get(feed_url).status_code == 200
    here, elsewhere = Client(), Client(REMOTE_ADDR="10.1.1.1")
    assert _login(here, "alice", "pw-alice").status_code == 302
    assert _login(elsewhere, "alice", "pw-alice").status_code == 302

    assert here.get("/accounts/password/").status_code == 200
    response = here.post(
        "/accounts/password/",
        {
            "old_password": "pw-alice",
            "new_password1": "another-Passw0rd-2026",
            "new_password2": "another-Passw0rd-2026",
        },
        follow=True,
    )
    assert response.status_code == 200
    assert "2 API/feed token(s) revoked" in response.text

    event = AuditEvent.objects.get(action="auth.password_change")
    assert event.actor == alice and event.data == {"via": "change", "tokens_revoked": 2}
    assert not ApiToken.objects.filter(user=alice, revoked_at__isnull=True).exists()
    assert Client().get("/api/projects/", HTTP_AUTHORIZATION=f"Bearer {api_key}").status_code == 401
    assert Client().get(feed_url).status_code in (401, 403, 404)
    # This session stays; the other one ends.
    assert here.get("/teams/").status_code == 200
    assert elsewhere.get("/teams/").status_code == 302


def test_a_wrong_old_password_changes_nothing(alice):
    token_create(actor=alice, name="ci")
    client = Client()
    client.force_login(alice)
    response = client.post(
        "/accounts/password/",
        {
            "old_password": "nope",
            "new_password1": "x-Passw0rd-77",
            "new_password2": "x-Passw0rd-77",
        },
    )
    assert response.status_code == 200
    assert ApiToken.objects.filter(user=alice, revoked_at__isnull=True).count() == 1
    assert not AuditEvent.objects.filter(action="auth.password_change").exists()


def test_an_over_long_username_is_a_form_error_and_still_counts(alice):
    from studio.accounts.backends import lockout_username

    response = _login(Client(), "x" * 6_000, "wrong")
    assert response.status_code == 200 and "at most 150" in response.text
    assert lockout_username(None, {"username": "a\x00" + "b" * 300}) == "a" + "b" * 149
