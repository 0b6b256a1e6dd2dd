"""PATCH (rename, description), archive / restore and an owner's confirmed delete of projects
and designs through the API: audited, archived objects hidden from lists unless asked for,
nothing deleted without the owner's explicit confirmation."""

import pytest

from studio.core.models import AuditEvent
from studio.designs.models import Design, Project
from studio.runs import services as run_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_design(client, team_a, design_in):
    alice, _ = team_a
    design = design_in(alice, team_a[1])
    client.force_login(alice)
    return design


def test_patch_renames_and_describes_a_design_audited(client, alice_design):
    url = f"/api/designs/{alice_design.pk}/"
    response = client.patch(
        url, {"name": "Renamed", "description": "for the board"}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["name"] == "Renamed"
    assert response.json()["description"] == "for the board"
    event = AuditEvent.objects.get(action="design.update")
    assert event.data["name"] == ["Design 1", "Renamed"]


def test_patch_refuses_a_taken_name_and_an_empty_body(client, alice_design, team_a):
    from studio.designs import services

    services.design_create(
        actor=team_a[0],
        project=alice_design.project,
        name="Other",
        spec=alice_design.latest_revision.spec,
        message="x",
    )
    url = f"/api/designs/{alice_design.pk}/"
    taken = client.patch(url, {"name": "Other"}, content_type="application/json")
    assert taken.status_code == 400 and "name" in taken.json()
    assert client.patch(url, {}, content_type="application/json").status_code == 400
    too_long = client.patch(url, {"name": "x" * 201}, content_type="application/json")
    assert too_long.status_code == 400 and "name" in too_long.json()
    assert Design.objects.get(pk=alice_design.pk).name == "Design 1"


def test_patch_a_project(client, alice_design):
    project = alice_design.project
    response = client.patch(
        f"/api/projects/{project.pk}/", {"name": "Q3 plan"}, content_type="application/json"
    )
    assert response.status_code == 200 and response.json()["name"] == "Q3 plan"
    assert Project.objects.get(pk=project.pk).name == "Q3 plan"


def test_archived_design_leaves_the_list_and_comes_back(client, alice_design):
    design_id = alice_design.pk
    archived = client.post(f"/api/designs/{design_id}/archive/")
    assert archived.status_code == 200 and archived.json()["archived"] is True

    ids = lambda query="": [d["id"] for d in client.get(f"/api/designs/{query}").json()["results"]]  # noqa: E731
    assert ids() == []
    assert ids("?archived=true") == [design_id]
    assert ids("?archived=all") == [design_id]
    assert client.get(f"/api/designs/{design_id}/").status_code == 200  # still there

    assert client.post(f"/api/designs/{design_id}/restore/").json()["archived"] is False
    assert ids() == [design_id]
    actions = list(
        AuditEvent.objects.filter(target_id=str(design_id)).values_list("action", flat=True)
    )
    assert "design.archive" in actions and "design.restore" in actions


def test_an_archived_project_hides_it_and_its_designs(client, alice_design):
    project = alice_design.project
    assert client.post(f"/api/projects/{project.pk}/archive/").status_code == 200
    assert client.get("/api/projects/").json()["count"] == 0
    assert client.get("/api/designs/").json()["count"] == 0
    assert client.get("/api/projects/?archived=true").json()["count"] == 1
    refused = client.get("/api/projects/?archived=maybe")
    assert refused.status_code == 400 and "one of false" in refused.json()["archived"][0]
    # The HTML list uses the same FilterSet: hidden by default, shown when asked for.
    assert project.name not in client.get("/").content.decode()
    assert project.name in client.get("/?archived=true").content.decode()


def test_delete_is_an_owners_explicit_act(client, alice_design, make_member):
    url = f"/api/designs/{alice_design.pk}/"
    editor, _ = make_member("eddie", "Alpha", role="editor")
    client.force_login(editor)
    assert client.delete(f"{url}?confirm=Design 1").status_code == 403
    client.force_login(alice_design.project.team.memberships.get(role="owner").user)
    assert client.delete(url).status_code == 400  # no confirmation
    wrong = client.delete(f"{url}?confirm=design 1")
    assert wrong.status_code == 400 and "confirm" in wrong.json()
    assert Design.objects.filter(pk=alice_design.pk).exists()

    assert client.delete(f"{url}?confirm=Design 1").status_code == 204
    assert not Design.objects.filter(pk=alice_design.pk).exists()
    event = AuditEvent.objects.get(action="design.delete")
    assert event.data["name"] == "Design 1"


def test_viewer_can_neither_rename_nor_archive(client, alice_design, make_member):
    viewer, _ = make_member("vera", "Alpha", role="viewer")
    client.force_login(viewer)
    url = f"/api/designs/{alice_design.pk}/"
    assert client.patch(url, {"name": "X"}, content_type="application/json").status_code == 403
    assert client.post(f"{url}archive/").status_code == 403


def test_another_teams_design_is_not_found(client, alice_design, team_b, design_in):
    bob, bravo = team_b
    other = design_in(bob, bravo, name="Bravo design")
    url = f"/api/designs/{other.pk}/"
    assert client.patch(url, {"name": "X"}, content_type="application/json").status_code == 404
    assert client.post(f"{url}archive/").status_code == 404
    assert client.delete(f"{url}?confirm=Bravo design").status_code == 404


def test_a_never_saved_design_is_a_draft_that_can_be_discarded(client, alice_design, team_a):
    from studio.designs import services

    draft = services.design_create_blank(actor=team_a[0], project=alice_design.project, name="Z")
    listed = {d["id"]: d for d in client.get("/api/designs/").json()["results"]}
    assert listed[draft.pk]["status"] == "draft" and listed[draft.pk]["latest_revision"] is None
    assert listed[alice_design.pk]["status"] == "saved"
    assert client.post(f"/api/designs/{alice_design.pk}/discard-draft/").status_code == 409
    assert client.post(f"/api/designs/{draft.pk}/discard-draft/").status_code == 204
    assert not Design.objects.filter(pk=draft.pk).exists()
    assert AuditEvent.objects.filter(action="design.discard_draft").exists()


def test_filters_work_and_unknown_values_name_the_parameter(client, alice_design, team_a):
    from studio.designs import services

    alice = team_a[0]
    other_project = services.project_create(actor=alice, team=team_a[1], name="Other")
    other = services.design_create(
        actor=alice,
        project=other_project,
        name="Elsewhere",
        spec=alice_design.latest_revision.spec,
        message="x",
    )
    for design in (alice_design, other):
        run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)

    def run_designs(query):
        response = client.get(f"/api/runs/{query}")
        assert response.status_code == 200, response.content
        return {r["design"] for r in response.json()["results"]}

    assert run_designs("") == {alice_design.pk, other.pk}
    assert run_designs(f"?design={other.pk}") == {other.pk}
    assert run_designs(f"?project={alice_design.project_id}") == {alice_design.pk}
    assert run_designs("?status=queued") == {alice_design.pk, other.pk}
    assert run_designs("?status=done") == set()
    assert run_designs("?revision=1&created_after=2000-01-01") == {alice_design.pk, other.pk}
    assert run_designs("?created_before=2000-01-01") == set()
    designs = client.get(f"/api/designs/?project={other_project.pk}").json()["results"]
    assert [d["id"] for d in designs] == [other.pk]

    for query, parameter in (
        ("?status=finished", "status"),
        ("?design=abc", "design"),
        ("?created_after=yesterday", "created"),
        ("?desing=3", "desing"),
    ):
        response = client.get(f"/api/runs/{query}")
        assert response.status_code == 400, query
        assert any(key.startswith(parameter) for key in response.json()), response.json()


def test_run_summaries_carry_revision_numbers_and_headline(client, evaluated):
    design, run = evaluated
    client.force_login(design.project.team.memberships.first().user)
    listed = client.get("/api/runs/").json()["results"][0]
    assert listed["revision"] == 1 and listed["revision_label"] == "r1"
    assert listed["design"] == design.pk and listed["design_name"] == design.name
    # One number, one owner: the engine's headline, as stored.
    assert listed["headline"] == run.results["headline"]
    assert listed["headline"]["time_to_train_days"] > 0
