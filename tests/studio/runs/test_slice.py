"""Log in, create a project, a design from an example, evaluate it, see the chart."""

import pytest

from studio.runs.models import EngineRun, RunStatus
from tests.studio.runs.page_figures import page_figures

pytestmark = pytest.mark.django_db


def test_slice_through_the_html_pages(client, team_a, django_capture_on_commit_callbacks):
    _alice, alpha = team_a
    assert client.login(username="alice", password="pw-alice")
    response = client.post("/", {"team": alpha.pk, "name": "Cluster 2027", "description": ""})
    assert response.status_code == 302
    project_url = response.url
    response = client.post(
        f"{project_url}designs/from-example/",
        {"example": "h100-256-onprem-starter", "name": "Starter"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    design_url = response.url
    assert "Evaluate" in client.get(design_url).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(design_url + "evaluate/")
    assert response.status_code == 302
    run = EngineRun.objects.get()
    assert run.status == RunStatus.DONE, run.error  # eager in unit tests
    page = client.get(response.url).content.decode()
    assert "vendor/plotly.min.js" in page
    assert 'data-figure-id="memory-per-gpu"' in page
    figure = page_figures(client, page)["memory-per-gpu"]
    assert figure["data"] and figure["layout"]["yaxis"]["title"]["text"].endswith("(GiB)")
    assert sum(bar["y"][0] for bar in figure["data"]) == pytest.approx(
        run.results["performance"]["memory"]["total_gib"], rel=1e-9
    )
