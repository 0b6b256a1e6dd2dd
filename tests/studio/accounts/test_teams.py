"""Teams: owners manage members; the last owner stays."""

import pytest

pytestmark = pytest.mark.django_db


def test_owner_manages_members_and_the_last_owner_stays(client, team_a, make_member):
    from studio.accounts.models import Membership

    alice, alpha = team_a
    bob, _ = make_member("bob2", "Elsewhere")
    client.force_login(alice)
    client.post(f"/teams/{alpha.pk}/", {"username": "bob2", "role": "editor", "action": "set"})
    assert Membership.objects.get(team=alpha, user=bob).role == "editor"
    client.post(f"/teams/{alpha.pk}/", {"username": "alice", "role": "viewer", "action": "set"})
    assert Membership.objects.get(team=alpha, user=alice).role == "owner"
    client.post(f"/teams/{alpha.pk}/", {"username": "bob2", "action": "remove"})
    assert not Membership.objects.filter(team=alpha, user=bob).exists()
    client.force_login(bob)
    assert client.get(f"/teams/{alpha.pk}/").status_code == 404
