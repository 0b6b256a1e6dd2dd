"""A team with an owner (alice, asks), an editor (bob, reviews) and a viewer (vera); a design
evaluated in-process."""

import pytest

from studio.reviews import services
from studio.runs import services as run_services


@pytest.fixture
def crew(make_member, team_a):
    alice, alpha = team_a
    bob, _ = make_member("bob", "Alpha", role="editor")
    vera, _ = make_member("vera", "Alpha", role="viewer")
    for user in (alice, bob, vera):
        user.email = f"{user.username}@example.org"
        user.save()
    return {"alice": alice, "bob": bob, "vera": vera, "team": alpha}


def evaluate(revision, actor=None):
    run = run_services.run_enqueue(
        actor=actor or revision.author, revision=revision, dispatch=False
    )
    return run_services.run_execute(run_id=run.pk)


@pytest.fixture
def reviewed(crew, design_in):
    design = design_in(crew["alice"], crew["team"])
    evaluate(design.latest_revision)
    review = services.review_request(
        actor=crew["alice"], project=design.project, designs=[design], reviewers=[crew["bob"]]
    )
    return design, review
