"""Revisions are immutable."""

import pytest

from studio.designs.models import DesignRevision

pytestmark = pytest.mark.django_db


def test_revisions_are_immutable(team_a, design_in):
    alice, alpha = team_a
    revision = design_in(alice, alpha).latest_revision
    revision.message = "rewrite history"
    with pytest.raises(ValueError):
        revision.save()
    assert DesignRevision.objects.get(pk=revision.pk).message == "test"
