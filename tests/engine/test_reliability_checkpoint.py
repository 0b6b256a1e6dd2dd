"""Checkpoint-interval theory against the published worked examples (reliability.md):
Daly (2006), Figs 3-5 with delta = 5 min, R = 10 min, T_s = 500 h: M = 24 h -> 117 min,
M = 6 h -> 57 min, M = 15 min -> 9.1 min, reproduced to the published precision (half a
minute). Young (1974) is sqrt(2 delta M) and Daly's first order sqrt(2 delta (M + R))."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from models_engine.engines.reliability import (
    daly_first_order_interval,
    daly_interval,
    young_interval,
)
from models_engine.engines.reliability.checkpoint import (
    expected_wall_time,
    goodput,
    goodput_curve,
    segment_time,
)

DELTA_MIN = 5.0
RESTART_MIN = 10.0
# (M in minutes, Daly's published optimum in minutes)
DALY_PUBLISHED = [(24 * 60.0, 117.0), (6 * 60.0, 57.0), (15.0, 9.1)]
PUBLISHED_PRECISION_MIN = 0.5


@pytest.mark.parametrize(("mtti_min", "published_min"), DALY_PUBLISHED)
def test_daly_higher_order_reproduces_the_published_optimum(mtti_min, published_min):
    assert daly_interval(DELTA_MIN, mtti_min) == pytest.approx(
        published_min, abs=PUBLISHED_PRECISION_MIN
    )


@pytest.mark.parametrize(("mtti_min", "young_min"), [(1440.0, 120.0), (360.0, 60.0)])
def test_young_is_sqrt_two_delta_m(mtti_min, young_min):
    # sqrt(2 x 5 x 1440) = 120 min and sqrt(2 x 5 x 360) = 60 min exactly.
    assert young_interval(DELTA_MIN, mtti_min) == pytest.approx(young_min, rel=1e-12)


def test_young_for_the_short_mtti_example():
    assert young_interval(DELTA_MIN, 15.0) == pytest.approx(math.sqrt(150.0), rel=1e-12)


def test_daly_first_order_adds_the_restart_time():
    assert daly_first_order_interval(DELTA_MIN, 1440.0, RESTART_MIN) == pytest.approx(
        math.sqrt(2 * 5 * 1450), rel=1e-12
    )


def test_daly_uses_m_when_the_checkpoint_takes_longer_than_two_mtti():
    assert daly_interval(40.0, 15.0) == 15.0


@pytest.mark.parametrize(("mtti_min", "published_min"), DALY_PUBLISHED)
def test_goodput_curve_peaks_at_the_daly_interval(mtti_min, published_min):
    optimum = daly_interval(DELTA_MIN, mtti_min)
    curve = goodput_curve(optimum, DELTA_MIN, mtti_min, RESTART_MIN)
    best = curve["intervals"][curve["best_index"]]
    assert abs(best - optimum) <= curve["step"]


@settings(max_examples=200, deadline=None)
@given(
    delta=st.floats(min_value=0.01, max_value=30.0),
    mtti=st.floats(min_value=1.0, max_value=100_000.0),
    restart=st.floats(min_value=0.0, max_value=60.0),
)
def test_goodput_optimum_is_the_daly_interval_within_a_grid_step(delta, mtti, restart):
    # Daly's expansion is in (delta/2M)^0.5: up to delta = M it stays within 2% of the exact
    # optimum of its own cost model (grid step 4%); near delta = 2M it is ~6% off. A checkpoint
    # slower than the MTTI is a broken design anyway (flagged by the goodput finding).
    assume(delta <= mtti)
    optimum = daly_interval(delta, mtti)
    curve = goodput_curve(optimum, delta, mtti, restart)
    best = curve["intervals"][curve["best_index"]]
    assert abs(best - optimum) <= curve["step"] * 1.0001


@settings(max_examples=200, deadline=None)
@given(
    tau=st.floats(min_value=0.01, max_value=10_000.0),
    delta=st.floats(min_value=0.0, max_value=60.0),
    mtti=st.floats(min_value=0.5, max_value=1e6),
    restart=st.floats(min_value=0.0, max_value=60.0),
)
def test_goodput_is_in_zero_one(tau, delta, mtti, restart):
    value = float(goodput(tau, delta, mtti, restart))
    assert 0.0 < value <= 1.0


def test_without_failures_goodput_is_work_over_work_plus_checkpoint():
    assert float(goodput(55.0, 5.0, 1e12, 10.0)) == pytest.approx(55.0 / 60.0, rel=1e-6)


def test_expected_wall_time_is_the_sum_of_segments():
    work, tau = 500 * 60.0, 117.0
    full = math.floor(work / tau)
    expected = full * float(segment_time(tau + DELTA_MIN, 1440.0, RESTART_MIN)) + float(
        segment_time(work - full * tau, 1440.0, RESTART_MIN)
    )
    assert expected_wall_time(work, tau, DELTA_MIN, 1440.0, RESTART_MIN) == pytest.approx(expected)


def test_segment_time_is_vectorised():
    lengths = np.array([10.0, 20.0])
    assert segment_time(lengths, 100.0, 5.0).shape == (2,)
