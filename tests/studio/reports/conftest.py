"""Report fixtures: a project with two evaluated example designs, and the roadmap engine
(the real one when the engines have it, else a hand-built RoadmapResult)."""

import pytest

import models_engine
from studio.designs import services as design_services
from studio.runs import services as run_services
from tests.conftest import example_spec
from tests.studio.reports.roadmap_fixture import fake_roadmap


@pytest.fixture(autouse=True)
def roadmap_engine(monkeypatch):
    if not hasattr(models_engine, "evaluate_roadmap"):
        monkeypatch.setattr(models_engine, "evaluate_roadmap", fake_roadmap, raising=False)


def evaluate(actor, design):
    run = run_services.run_enqueue(actor=actor, revision=design.latest_revision, dispatch=False)
    return run_services.run_execute(run_id=run.pk)


@pytest.fixture
def two_designs(team_a, design_in):
    """(alice, first design, second design), both evaluated, in one project."""
    alice, alpha = team_a
    first = design_in(alice, alpha, name="256x H100 starter")
    second = design_services.design_create(
        actor=alice,
        project=first.project,
        name="DGX H100 SuperPOD, 4 SU",
        spec=example_spec("dgx-h100-superpod-4su"),
        message="test",
    )
    evaluate(alice, first)
    evaluate(alice, second)
    return alice, first, second
