"""The validation page and API: any logged-in user reads them (no team data), the numbers are the
engine table's, filters answer 400 naming a bad one; a design's headline numbers carry the grade
of its nearest references, the same on the results page, the design page and the report."""

import pytest
from django.urls import reverse

from models_engine import design_evidence, design_facts, validation_table
from studio.runs.sections.format import percent, signed_percent

pytestmark = pytest.mark.django_db
TABLE = validation_table()


def test_anonymous_callers_are_sent_to_login_or_refused(client):
    response = client.get(reverse("validation"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.get(reverse("api-validation")).status_code in (401, 403)


def test_a_member_of_any_team_reads_the_page_with_the_tables_numbers(client, team_b):
    client.force_login(team_b[0])
    response = client.get(reverse("validation"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'href="/validation/"' in html  # in the global nav
    for summary in TABLE.by_family:
        assert f">{summary.name}</a>" in html
        for stats in (summary.fitted, summary.check):
            assert f">{percent(stats.median)}<" in html
    for ref in TABLE.references:
        assert f'id="ref-{ref.id}"' in html


def test_the_api_returns_the_engine_table(client, team_a):
    client.force_login(team_a[0])
    data = client.get(reverse("api-validation")).json()
    assert data["overall"] == TABLE.overall.as_dict()
    assert data["by_family"] == [s.as_dict() for s in TABLE.by_family]
    by_id = {r["id"]: r for r in data["references"]}
    assert len(by_id) == len(TABLE.references)
    for ref in TABLE.references:
        assert by_id[ref.id]["error"] == ref.error
        assert by_id[ref.id]["role"] == ref.role
    assert set(data["grade_rules"]) == {"A", "B", "C", "D", "-"}


def test_filters_select_references_and_recompute_the_summary(client, team_a):
    client.force_login(team_a[0])
    data = client.get(reverse("api-validation"), {"role": "check", "gpu": "Hopper"}).json()
    expected = [r for r in TABLE.references if r.role == "check" and r.gpu_architecture == "Hopper"]
    assert [r["id"] for r in data["references"]] == [r.id for r in expected]
    assert data["overall"]["fitted"]["n"] == 0
    assert data["overall"]["check"]["n"] == sum(r.scored for r in expected)


def test_dense_and_moe_step_times_are_summarised_and_filtered_apart(client, team_a):
    """The page's summary shows the step-time errors of dense and MoE models on rows of their
    own (the engine table's numbers); model_class=moe keeps only MoE runs."""
    client.force_login(team_a[0])
    html = client.get(reverse("validation")).content.decode()
    for summary in TABLE.by_model_class:
        row = html.split(f"<td>{summary.name}</td>", 1)[1].split("</tr>", 1)[0]
        assert f">{percent(summary.check.median)}<" in row
        # the check-only bias (median signed error) closes the row: MoE runs come out fast
        assert row.rstrip().endswith(f">{signed_percent(summary.check.bias)}</td>")
    moe = next(s for s in TABLE.by_model_class if "MoE" in s.name)
    assert moe.check.bias < 0
    data = client.get(reverse("api-validation"), {"model_class": "moe"}).json()
    expected = [r for r in TABLE.references if r.model_class == "moe"]
    assert expected and [r["id"] for r in data["references"]] == [r.id for r in expected]
    assert [s["name"] for s in data["by_model_class"]] == ["performance: step time, MoE models"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"model_class": "hybrid"}, "model_class"),
        ({"role": "guess"}, "role"),
        ({"family": "nope"}, "family"),
        ({"desing": "x"}, "desing"),
        ({"ids": "no-such-id"}, "ids"),
    ],
)
def test_a_bad_filter_is_a_400_naming_it(client, team_a, params, field):
    client.force_login(team_a[0])
    api = client.get(reverse("api-validation"), params)
    assert api.status_code == 400 and field in api.json()
    page = client.get(reverse("validation"), params)
    assert page.status_code == 400
    assert f"<code>{field}</code>" in page.content.decode()


def test_results_and_design_pages_show_the_designs_nearest_grade(client, team_a, evaluated):
    design, run = evaluated
    client.force_login(team_a[0])
    stack = run.results["performance"]["software_stack"]["name"]
    facts = design_facts(run.revision.spec, stack=stack)
    expected = design_evidence(facts, ["step_time_s", "memory_per_gpu_gib", "mtti_h"])
    for url in (reverse("run-detail", args=[run.pk]), reverse("design-detail", args=[design.pk])):
        html = client.get(url).content.decode()
        for key, evidence in expected.items():
            card = html.split(f'data-metric="{key}"', 1)[1].split('class="headline-card"', 1)[0]
            assert f"evidence {evidence.grade}" in card
            if evidence.reference_ids:
                assert "ids=" + "%2C".join(evidence.reference_ids) in card
            else:  # none near the design: the link opens the engine's references
                assert f"?engine={evidence.engines[0]}" in card
    # The link opens the panel filtered to exactly those references.
    ids = ",".join(expected["step_time_s"].reference_ids)
    panel = client.get(reverse("validation"), {"ids": ids}).content.decode()
    assert panel.count('<tr id="ref-') == len(expected["step_time_s"].reference_ids)


def test_the_report_shows_the_same_grade_as_the_results_page(client, team_a, evaluated):
    from studio.reports.document import comparison
    from studio.reports.services import snapshot_of

    design, run = evaluated
    rows = {row["metric"].key: row for row in comparison([snapshot_of(design)])}
    stack = run.results["performance"]["software_stack"]["name"]
    facts = design_facts(run.revision.spec, stack=stack)
    expected = design_evidence(facts, ["step_time_s"])["step_time_s"]
    cell = rows["step_time_s"]["cells"][0]["evidence"]
    assert (cell.grade, cell.text) == (expected.grade, expected.text)
