"""The catalog page lists switches, NICs, optics and storage with readable figures, and says
which prices are allowances (or left to a cost allowance)."""

import pytest

from models_engine import load_catalog
from studio.catalog.presentation import catalog_tables


def _row(tables, kind, entry_id):
    table = next(t for t in tables if t["kind"] == kind)
    row = next(r for r in table["rows"] if r["id"] == entry_id)
    return dict(zip(table["columns"], row["values"], strict=True))


def test_catalog_tables_show_prices_allowances_and_readable_numbers():
    tables = catalog_tables(load_catalog(), {})
    assert {"switches", "nics", "optics", "storage"} <= {t["kind"] for t in tables}
    q3400 = _row(tables, "switches", "nvidia-q3400")
    assert q3400["radix (ports)"] == "144" and q3400["port Gb/s"] == "800"
    assert q3400["price USD"] == "no price: cost allowance"
    assert q3400["typical W"] == "allowance (W per Tb/s)"
    assert _row(tables, "switches", "nvlink5-switch-tray")["price USD"] == "in the system price"
    assert _row(tables, "switches", "nvidia-qm9700")["price USD"] == "50,000"
    assert _row(tables, "nics", "cx7-ndr-400g")["price USD"] == "1,893.5"
    optic = _row(tables, "optics", "osfp-800g-2xfr4-sm")
    assert (optic["reach m"], optic["speed Gb/s"]) == ("2,000", "800")
    ddn = _row(tables, "storage", "ddn-ai400x2-turbo")
    assert ddn["price USD/TB"] == "218.75 (allowance)"


@pytest.mark.django_db
def test_catalog_page_renders_the_new_tables(client, team_a):
    alice, _ = team_a
    client.force_login(alice)
    page = client.get("/catalog/").content.decode()
    assert 'id="optics"' in page and 'id="storage"' in page
    assert "Arista 7816R4" in page and "no price: cost allowance" in page
