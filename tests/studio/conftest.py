"""Fixtures shared by the studio tests."""

import pytest

from studio.core.process_cache import ProcessCache
from studio.runs import services as run_services


@pytest.fixture(autouse=True)
def fresh_process_caches():
    """Each test starts as a freshly started web process: nothing built yet."""
    ProcessCache.clear_all()
    yield
    ProcessCache.clear_all()


@pytest.fixture
def evaluated(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    return design, run_services.run_execute(run_id=run.pk)
