"""The revision diff's headline change is written at the precision of the values beside it."""

from studio.runs.headline import headline_changes


def _row(key, old, new):
    return next(r for r in headline_changes({key: old}, {key: new}) if r["metric"].key == key)


def test_a_change_is_written_at_the_values_precision():
    mfu = _row("mfu", 0.486291, 0.486)
    assert (mfu["old_text"], mfu["new_text"], mfu["unit_text"]) == ("48.6", "48.6", "%")
    assert mfu["delta_text"] == "-0.03"  # not -0.0291: finer than the values beside it
    capex = _row("capex_usd", 19_112_601.0, 37_375_446.0)
    assert (capex["delta_text"], capex["unit_text"]) == ("+18.3", "million USD")
    step = _row("step_time_s", 14.02, 7.1)
    assert step["delta_text"] == "-6.9"


def test_whole_numbers_and_missing_values_keep_their_own_form():
    racks = _row("racks", 22, 30)
    assert racks["delta_text"] == "+8"
    assert _row("mfu", None, 0.5)["delta_text"] == ""
