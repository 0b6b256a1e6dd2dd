"""Team scoping fails closed: outside the team every page and object is a 404."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from studio.accounts.scoping import ScopingError, TeamScopedObjectMixin
from studio.catalog import services as catalog_services
from studio.reviews import services as review_services
from studio.runs import services as run_services
from tests.conftest import team_gpu_entry

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(team_a, team_b, design_in, make_member):
    alice, _alpha = team_a
    bob, bravo = team_b
    design_b = design_in(bob, bravo, name="Bravo design")
    run_b = run_services.run_enqueue(actor=bob, revision=design_b.latest_revision)
    entry_b = catalog_services.team_entry_create(
        actor=bob, team=bravo, kind="gpus", data=team_gpu_entry("bravo-secret-gpu")
    )
    from studio.reports.models import Report

    report_b = Report.objects.create(project=design_b.project, title="Bravo report", covers=[])
    from studio.runs.sweeps.services import sweep_create

    sweep_b = sweep_create(
        actor=bob,
        design=design_b,
        definition={"axes": [{"path": "economics.utilisation", "values": [0.5, 0.9]}]},
    )
    carol, _ = make_member("carol", "Bravo", role="editor")
    review_b = review_services.review_request(
        actor=bob, project=design_b.project, designs=[design_b], reviewers=[carol]
    )
    comment_b = review_services.comment_add(actor=carol, review=review_b, body="Bravo only")
    return {
        "sweep_b": sweep_b,
        "review_b": review_b,
        "comment_b": comment_b,
        "alice": alice,
        "design_b": design_b,
        "run_b": run_b,
        "entry_b": entry_b,
        "report_b": report_b,
    }


def _object_urls(world) -> list[str]:
    design = world["design_b"]
    return [
        f"/projects/{design.project.pk}/",
        f"/designs/{design.pk}/",
        f"/runs/{world['run_b'].pk}/",
        f"/api/projects/{design.project.pk}/",
        f"/api/designs/{design.pk}/",
        f"/api/runs/{world['run_b'].pk}/",
        f"/reviews/{world['review_b'].pk}/",
        f"/reviews/{world['review_b'].pk}/present/",
        f"/api/reviews/{world['review_b'].pk}/",
        f"/api/review-comments/{world['comment_b'].pk}/",
    ]


def _named_object_patterns(resolver=None, namespace_admin=False):
    """(name, kwargs names) of every named URL pattern that takes an object id."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if entry.app_name == "admin":
                continue  # staff-only; Django admin does its own permission checks
            yield from _named_object_patterns(entry)
        elif isinstance(entry, URLPattern) and entry.name:
            params = set(entry.pattern.regex.groupindex)
            if params & {"pk", "id"}:
                yield entry.name, params


def _object_for(name: str, world) -> int:
    # Review URLs first: "project-review-new" takes a project, "review-comment" a review.
    for prefix, obj in (
        ("comment-", world["comment_b"]),
        ("api-review-comment", world["comment_b"]),
        ("review-", world["review_b"]),
        ("api-review", world["review_b"]),
    ):
        if name.startswith(prefix):
            return obj.pk
    for kind, obj in (
        ("team", world["design_b"].project.team),
        ("catalog-entry", world["entry_b"]),
        ("sweep-", world["sweep_b"]),  # (design-sweeps takes the design)
        ("run", world["run_b"]),
        ("design", world["design_b"]),
        ("project", world["design_b"].project),
        ("report", world["report_b"]),
    ):
        if kind in name:
            return obj.pk
    raise AssertionError(f"URL {name} takes an id but this test does not know its model")


def test_every_url_pattern_with_an_id_answers_404_for_another_team(client, world):
    """Walk the whole URL conf: no pattern that takes an id leaks another team's object."""
    client.force_login(world["alice"])
    patterns = list(_named_object_patterns())
    assert len(patterns) >= 6
    for name, params in patterns:
        other_params = {"fmt": "csv", "table": "headline"}
        kwargs = {p: other_params.get(p, _object_for(name, world)) for p in params}
        url = reverse(name, kwargs=kwargs)
        statuses = {client.get(url).status_code, client.post(url).status_code}
        assert statuses <= {404, 405}, (name, url, statuses)
        assert 404 in statuses, (name, url, statuses)


def test_lists_show_only_own_team(client, world, design_in, team_a):
    alice, alpha = team_a
    design_in(alice, alpha, name="Alpha design")
    client.force_login(alice)
    names = [p["name"] for p in client.get("/api/projects/").json()["results"]]
    assert names == ["Alpha project"]
    assert [r["id"] for r in client.get("/api/runs/").json()["results"]] == []
    assert "Bravo project" not in client.get("/").content.decode()


def test_viewer_can_read_but_not_evaluate(client, make_member, design_in, team_a):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    viewer, _ = make_member("victor", "Alpha", role="viewer")
    client.force_login(viewer)
    assert client.get(f"/designs/{design.pk}/").status_code == 200
    assert client.post(f"/designs/{design.pk}/evaluate/").status_code == 403
    assert client.post(f"/api/designs/{design.pk}/evaluate/").status_code == 403


def test_anonymous_is_sent_to_login(client, world):
    response = client.get(f"/designs/{world['design_b'].pk}/")
    assert response.status_code == 302 and "/accounts/login/" in response.url
    assert client.get("/api/projects/").status_code in (401, 403)


def test_a_view_cannot_override_get_queryset():
    with pytest.raises(ScopingError):

        class Leaky(TeamScopedObjectMixin):
            def get_queryset(self):
                return None


def test_patch_and_delete_of_another_teams_objects_are_not_found(client, world):
    """The walk above sends GET and POST; the API's PATCH and DELETE are scoped the same way."""
    client.force_login(world["alice"])
    design = world["design_b"]
    for url, name in (
        (f"/api/designs/{design.pk}/", design.name),
        (f"/api/projects/{design.project.pk}/", design.project.name),
    ):
        patch = client.patch(url, {"name": "Mine now"}, content_type="application/json")
        assert patch.status_code == 404, url
        assert client.delete(f"{url}?confirm={name}").status_code == 404, url
    design.refresh_from_db()
    assert design.name == "Bravo design"
