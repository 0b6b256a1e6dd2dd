"""The switch configurations of a run, zipped, from the results page and the API, with the
same permission checks as the other exports; the Network section on the run page."""

import io
import zipfile

import pytest

from studio.accounts.models import TokenKind
from studio.accounts.tokens import token_create
from studio.runs import services as run_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def roce_run(team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug="inference-fleet")
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    return alice, run_services.run_execute(run_id=run.pk)


def switch_count(run) -> int:
    return sum(s["leaves"] + s["spines"] + s["cores"] for s in run.results["network"]["sites"])


def test_run_page_shows_the_network_section_and_its_download(client, roce_run):
    alice, run = roce_run
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="results-network"' in page
    assert "network-pools" in page and "network-tenants" in page
    assert f"/runs/{run.pk}/network-configs.zip" in page
    tenant = run.results["network"]["sites"][0]["tenant_subnets"][0]
    assert tenant["subnet"] in page  # the tenant's subnet beside its VRF
    assert "sessions protected by GTSM" in page


def test_zip_holds_frr_eos_and_sonic_for_every_switch(client, roce_run):
    alice, run = roce_run
    client.force_login(alice)
    response = client.get(f"/runs/{run.pk}/network-configs.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert sum(n.endswith(".frr.conf") for n in names) == switch_count(run)
    assert sum(n.endswith(".eos.cfg") for n in names) == switch_count(run)
    assert sum(n.endswith(".config_db.json") for n in names) == switch_count(run)
    assert "README.txt" in names


def test_api_token_downloads_and_other_teams_get_404(client, roce_run, team_b):
    alice, run = roce_run
    _, key = token_create(actor=alice, name="ci", kind=TokenKind.API)
    url = f"/api/runs/{run.pk}/network-configs.zip"
    assert client.get(url, headers={"Authorization": f"Bearer {key}"}).status_code == 200
    assert client.get(url).status_code == 404
    client.force_login(team_b[0])
    assert client.get(url).status_code == 404
    assert client.get(f"/runs/{run.pk}/network-configs.zip").status_code == 404
