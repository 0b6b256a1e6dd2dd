"""Password-reset requests are rate-limited per client and per address asked for, and no
answer says whether an account exists (issue 19)."""

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from studio.accounts.models import PasswordResetRequest

pytestmark = pytest.mark.django_db

RESET = "/accounts/password/reset/"
SENT = "/accounts/password/reset/sent/"


@pytest.fixture
def alice(team_a):
    alice = team_a[0]
    alice.email = "alice@example.com"
    alice.save()
    return alice


def _ask(email: str, ip: str = "203.0.113.7"):
    return Client(REMOTE_ADDR=ip).post(RESET, {"email": email})


def test_one_client_gets_five_requests_an_hour_whatever_the_addresses(alice, settings):
    assert settings.PASSWORD_RESET_LIMIT_PER_CLIENT == 5
    answers = [_ask(f"someone{n}@example.com").status_code for n in range(5)]
    assert answers == [302] * 5
    refused = _ask("alice@example.com")  # the 6th: refused, although alice exists
    assert refused.status_code == 429 and "Too many reset requests" in refused.text
    assert mail.outbox == []
    # Another client is not affected, and alice gets her mail.
    assert _ask("alice@example.com", ip="198.51.100.2").url == SENT
    assert len(mail.outbox) == 1
    # The limit is the same for an unknown address: the 429 says nothing about accounts.
    assert _ask("nobody@example.com").status_code == 429


def test_one_address_gets_five_mails_an_hour_from_any_number_of_clients(alice):
    for n in range(5):
        assert _ask("Alice@Example.com ", ip=f"198.51.100.{n + 1}").url == SENT
    assert len(mail.outbox) == 5
    # The 6th, from a fresh client: answered exactly as before, and nothing is sent.
    sixth = _ask("alice@example.com", ip="192.0.2.99")
    unknown = _ask("nobody@example.com", ip="192.0.2.98")
    assert sixth.status_code == unknown.status_code == 302 and sixth.url == unknown.url == SENT
    assert len(mail.outbox) == 5


def test_the_window_slides_and_old_requests_are_deleted(alice, settings):
    for n in range(5):
        _ask(f"someone{n}@example.com")
    assert _ask("alice@example.com").status_code == 429
    an_hour_ago = timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_WINDOW_S + 1)
    PasswordResetRequest.objects.update(created_at=an_hour_ago)
    assert _ask("alice@example.com").url == SENT
    assert len(mail.outbox) == 1
    # Only what the window needs is kept; no address is stored in clear.
    assert PasswordResetRequest.objects.count() == 1
    stored = PasswordResetRequest.objects.get()
    assert "alice" not in stored.email_digest and len(stored.email_digest) == 64
