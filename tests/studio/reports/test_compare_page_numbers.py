"""The compare page prints each headline number as the results cards and the report do (units,
sensible precision), never a raw float such as `10694400.638` or `11.000` racks."""

import json
import re

import pytest

from studio.designs import services as design_services
from studio.reports.document import format_metric
from studio.runs import services
from studio.runs.headline import HEADLINE_METRICS
from tests.conftest import example_spec

pytestmark = pytest.mark.django_db


def _evaluated(user, design):
    run = services.run_enqueue(actor=user, revision=design.latest_revision, dispatch=False)
    return services.run_execute(run_id=run.pk)


def test_compare_cells_are_formatted_like_the_report(client, team_a, design_in):
    alice, alpha = team_a
    first = design_in(alice, alpha, slug="h100-256-onprem-starter")
    second = design_services.design_create(
        actor=alice,
        project=first.project,
        name="Superpod",
        spec=example_spec("dgx-h100-superpod-4su"),
        message="test",
    )
    runs = [_evaluated(alice, first), _evaluated(alice, second)]
    client.force_login(alice)
    page = client.get(f"/compare/?design={first.pk}&design={second.pk}").content.decode()
    table = page[page.index('id="comparison"') : page.index("</table>")]
    assert not re.search(r"\d\.\d{3}(?!\d)", table), "a raw three-decimal float is printed"
    headline = runs[0].results["headline"]
    for metric in HEADLINE_METRICS:
        if headline.get(metric.key) is not None:
            assert format_metric(headline[metric.key], metric) in table, metric.key


def _page_figure(page: str, figure_id: str) -> dict:
    script = rf'<script id="figure-{figure_id}" type="application/json">(.*?)</script>'
    found = re.search(script, page)
    assert found, figure_id
    return json.loads(found.group(1))


def test_compare_charts_show_fractions_in_percent_and_titles_that_fit(client, team_a, design_in):
    """Seen on the page: the table said MFU 48.6 % and the bar beside it 0.486 (fraction);
    the scaling chart's title ran off the panel and the TCO chart's name labels off the plot."""
    alice, alpha = team_a
    first = design_in(alice, alpha, slug="h100-256-onprem-starter")
    second = design_services.design_create(
        actor=alice,
        project=first.project,
        name="Superpod",
        spec=example_spec("dgx-h100-superpod-4su"),
        message="test",
    )
    runs = [_evaluated(alice, first), _evaluated(alice, second)]
    client.force_login(alice)
    page = client.get(f"/compare/?design={first.pk}&design={second.pk}").content.decode()
    mfu = _page_figure(page, "bar-mfu")
    assert mfu["layout"]["yaxis"]["title"]["text"] == "MFU (%)"
    expected = [run.results["headline"]["mfu"] * 100 for run in runs]
    assert mfu["data"][0]["y"] == pytest.approx(expected)
    tco = _page_figure(page, "cost-vs-time")
    assert all(trace["mode"] == "markers" for trace in tco["data"])
    assert tco["layout"]["yaxis"]["tickprefix"] == "$"
    for figure_id in ("scaling", "cost-vs-time", "bar-mfu"):
        title = _page_figure(page, figure_id)["layout"]["title"]
        assert title["yanchor"] == "top" and not title.get("automargin"), figure_id
        assert all(len(line) <= 60 for line in title["text"].split("<br>")), title["text"]


def test_compare_without_designs_says_how_to_pick_them(client, team_a):
    """/compare/ with no or one design was a dead end (a red line and nothing else)."""
    alice, _ = team_a
    client.force_login(alice)
    response = client.get("/compare/?design=1")
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="compare-how"' in page and 'href="/"' in page and "Compare selected" in page


def test_compare_names_each_designs_software_stack_as_modelled(client, team_a, design_in):
    """The stack a design was modelled with (auto resolved to the GPU's published-runs stack,
    options such as the FP8 recipe) sits in the comparison, in the results page's words."""
    from studio.runs.sections.performance import stack_traits
    from studio.runs.selectors import typed_results

    alice, alpha = team_a
    first = design_in(alice, alpha, slug="h100-256-onprem-starter")
    spec = example_spec("h100-256-onprem-starter")
    spec["workload"]["precision"] = "fp8"
    spec["workload"]["software_stack"] = {"name": "megatron-core-te-2024", "fp8_recipe": "current"}
    second = design_services.design_create(
        actor=alice, project=first.project, name="FP8-CS", spec=spec, message="test"
    )
    runs = [_evaluated(alice, first), _evaluated(alice, second)]
    client.force_login(alice)
    page = client.get(f"/compare/?design={first.pk}&design={second.pk}").content.decode()
    row = page[page.index('id="comparison-stack"') :].split("</tr>", 1)[0]
    for run in runs:
        stack = typed_results(run).performance.software_stack
        assert stack.name in row
        assert stack_traits(stack).replace("'", "&#x27;") in row
    assert "(auto)" in row and "(chosen in the workload)" in row
    assert "FP8 current scaling" in row
