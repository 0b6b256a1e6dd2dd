"""The results page's headline capex says how much of it is priced by value and how much rests
on allowances; the IT power card says how many kW of network gear are power allowances."""

import re

import pytest

from studio.runs.selectors import typed_results


@pytest.mark.django_db
def test_capex_and_it_power_cards_show_completeness(client, team_a, evaluated):
    alice, _ = team_a
    _, run = evaluated
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    cost = typed_results(run).cost
    share = cost.summary.capex_priced_share_by_value
    assert 0 < share < 1
    assert f"{share * 100:.1f} % priced by value" in page
    allowance = cost.completeness["allowance_usd"]
    lines = cost.summary.allowance_lines_count
    assert f"${allowance:,.0f} in {lines} allowance lines" in page
    assert "every line priced" in page
    assert not re.search(r"priced lines only</", page)
