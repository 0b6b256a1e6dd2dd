"""The revision diff page shows the cost change line by line (Infracost style), read from the
two runs' stored cost results; another team's design answers 404."""

import re

import pytest

from studio.designs import services as design_services
from studio.runs import services as run_services
from studio.runs.selectors import typed_results


def _evaluate(actor, revision):
    run = run_services.run_enqueue(actor=actor, revision=revision, dispatch=False)
    return run_services.run_execute(run_id=run.pk)


@pytest.fixture
def two_runs(team_a, design_in):
    """r1: the 32-node starter; r2: the same design grown to 64 nodes (512 GPUs)."""
    alice, alpha = team_a
    design = design_in(alice, alpha)
    before = _evaluate(alice, design.latest_revision)
    spec = dict(design.latest_revision.spec)
    spec["compute"] = {**spec["compute"], "gpu_count": 512}
    spec["workload"] = {**spec["workload"], "parallelism": "auto"}
    revision = design_services.design_revision_create(
        actor=alice, design=design, spec=spec, message="grow to 512 GPUs"
    )
    after = _evaluate(alice, revision)
    return design, before, after


@pytest.mark.django_db
def test_diff_page_lists_each_changed_cost_line_and_the_total(client, team_a, two_runs):
    alice, _ = team_a
    design, before, after = two_runs
    client.force_login(alice)
    page = client.get(f"/designs/{design.pk}/diff/?from=1&to=2").content.decode()
    assert 'id="cost-diff-capex"' in page and 'id="cost-diff-opex"' in page
    capex = page.split('id="cost-diff-capex"')[1].split("</table>")[0]
    # The systems line: 32 -> 64 DGX H100 at the catalog's $375,000, +$12,000,000.
    assert re.search(r"NVIDIA DGX H100, site \w+</td>\s*<td class=\"num\">32 → 64 systems", capex)
    assert "$375,000" in capex and "+$12,000,000" in capex
    old = typed_results(before).cost.summary.capex_usd
    new = typed_results(after).cost.summary.capex_usd
    total = capex.split("<tfoot>")[1]
    assert f"${old:,.0f} → ${new:,.0f}" in total
    assert f"+${new - old:,.0f}" in total
    assert "allowance" in capex  # allowance lines are marked


@pytest.mark.django_db
def test_diff_page_without_runs_says_so(client, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    client.force_login(alice)
    page = client.get(f"/designs/{design.pk}/diff/").content.decode()
    assert "Evaluate both revisions to see the cost change line by line." in page


@pytest.mark.django_db
def test_another_teams_diff_is_404(client, team_b, two_runs):
    bob, _ = team_b
    design, _, _ = two_runs
    client.force_login(bob)
    assert client.get(f"/designs/{design.pk}/diff/?from=1&to=2").status_code == 404


@pytest.mark.django_db
def test_api_diff_carries_the_same_cost_change(client, team_a, two_runs):
    alice, _ = team_a
    design, before, after = two_runs
    client.force_login(alice)
    diff = client.get(f"/api/designs/{design.pk}/diff/?from=1&to=2").json()
    capex = diff["cost_change"]["capex"]
    old = typed_results(before).cost.summary.capex_usd
    new = typed_results(after).cost.summary.capex_usd
    assert capex["delta_usd"] == pytest.approx(new - old)
    assert sum(line["delta_usd"] or 0 for line in capex["lines"]) == pytest.approx(new - old)
    systems = next(line for line in capex["lines"] if line["item"].startswith("NVIDIA DGX H100"))
    assert (systems["quantity_before"], systems["quantity_after"]) == (32, 64)
