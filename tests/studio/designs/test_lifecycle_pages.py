"""Renaming, archiving, deleting and discarding on the pages; the editor's Name field renames
the design."""

import pytest

from studio.core.models import AuditEvent
from studio.designs import services
from studio.designs.models import Design, Project

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, team_a, design_in):
    design = design_in(team_a[0], team_a[1])
    client.force_login(team_a[0])
    return design


def test_rename_a_design_on_its_page(client, signed_in):
    response = client.post(
        f"/designs/{signed_in.pk}/rename/", {"name": "Plan B", "description": "cheaper"}
    )
    assert response.status_code == 302
    page = client.get(f"/designs/{signed_in.pk}/").content.decode()
    assert "Plan B" in page and "cheaper" in page
    bad = client.post(f"/designs/{signed_in.pk}/rename/", {"name": ""})
    assert bad.status_code == 400 and "name" in bad.content.decode()


def test_archived_design_is_hidden_on_the_project_page_until_asked(client, signed_in):
    project_url = f"/projects/{signed_in.project_id}/"
    assert client.post(f"/designs/{signed_in.pk}/archive/").status_code == 302
    assert f"/designs/{signed_in.pk}/" not in client.get(project_url).content.decode()
    shown = client.get(f"{project_url}?archived=true").content.decode()
    assert f"/designs/{signed_in.pk}/" in shown and "(archived)" in shown
    assert client.get(f"{project_url}?archived=maybe").status_code == 400  # names the filter
    client.post(f"/designs/{signed_in.pk}/restore/")
    assert f"/designs/{signed_in.pk}/" in client.get(project_url).content.decode()


def test_project_delete_needs_the_owner_and_the_exact_name(client, signed_in, make_member):
    project = signed_in.project
    editor, _ = make_member("eddie", "Alpha", role="editor")
    client.force_login(editor)
    assert (
        client.post(f"/projects/{project.pk}/delete/", {"confirm": project.name}).status_code == 403
    )
    client.force_login(project.created_by)
    assert client.post(f"/projects/{project.pk}/delete/", {"confirm": "nope"}).status_code == 400
    assert Project.objects.filter(pk=project.pk).exists()
    response = client.post(f"/projects/{project.pk}/delete/", {"confirm": project.name})
    assert response.status_code == 302 and response["Location"] == "/"
    assert not Project.objects.filter(pk=project.pk).exists()
    assert not Design.objects.filter(pk=signed_in.pk).exists()
    assert AuditEvent.objects.filter(action="project.delete").exists()


def test_the_editor_name_field_renames_the_design(client, signed_in):
    editor_url = f"/designs/{signed_in.pk}/edit/"
    form = client.get(editor_url).content.decode()
    assert 'value="Design 1"' in form  # the design's name, not the example spec's
    from studio.designs.editor.codec import spec_to_form

    fields = spec_to_form(signed_in.latest_revision.spec)
    fields["name"] = "Renamed in the editor"
    response = client.post(editor_url, {**fields, "message": "rename"})
    assert response.status_code == 302
    signed_in.refresh_from_db()
    assert signed_in.name == "Renamed in the editor"
    assert signed_in.latest_revision.spec["name"] == "Renamed in the editor"


def test_the_editor_refuses_a_name_another_design_has(client, signed_in, team_a):
    services.design_create(
        actor=team_a[0],
        project=signed_in.project,
        name="Taken",
        spec=signed_in.latest_revision.spec,
        message="x",
    )
    from studio.designs.editor.codec import spec_to_form

    fields = spec_to_form(signed_in.latest_revision.spec)
    fields.update(name="Taken", **{"economics.utilisation": "0.5"})
    response = client.post(f"/designs/{signed_in.pk}/edit/", fields)
    assert response.status_code == 422 and "already has a design named" in response.content.decode()
    assert signed_in.revisions.count() == 1  # all or nothing: no revision either


def test_an_abandoned_from_scratch_design_is_a_draft_to_discard(client, signed_in, team_a):
    response = client.post(
        f"/projects/{signed_in.project_id}/designs/blank/", {"blank-name": "Scratch"}
    )
    draft = Design.objects.get(name="Scratch")
    assert response.status_code == 302
    assert "Discard this design" in client.get(f"/designs/{draft.pk}/edit/").content.decode()
    project_page = client.get(f"/projects/{signed_in.project_id}/").content.decode()
    assert "draft, never saved" in project_page
    assert client.post(f"/designs/{draft.pk}/discard-draft/").status_code == 302
    assert not Design.objects.filter(pk=draft.pk).exists()
    refused = client.post(f"/designs/{signed_in.pk}/discard-draft/")
    assert refused.status_code == 400 and Design.objects.filter(pk=signed_in.pk).exists()
