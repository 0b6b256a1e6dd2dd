"""The audit log: who changed what, failed logins."""

import pytest

pytestmark = pytest.mark.django_db


def test_audit_log_records_who_changed_what(client, team_a, design_in):
    from studio.core.models import AuditEvent

    alice, alpha = team_a
    client.force_login(alice)
    design = design_in(alice, alpha)
    actions = set(
        AuditEvent.objects.filter(project=design.project).values_list("action", flat=True)
    )
    assert {"project.create", "design.create", "revision.create"} <= actions
    page = client.get(f"/projects/{design.project.pk}/history/").content.decode()
    assert "revision.create" in page and "alice" in page


def test_failed_login_is_audited(client, team_a):
    from studio.core.models import AuditEvent

    client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    event = AuditEvent.objects.get(action="auth.login_failed")
    assert event.data == {"username": "alice"} and "wrong" not in str(event.data)
