"""Checkpoint interval theory: Young (1974), Daly (2006), and the expected wall-clock time of a
run that checkpoints every tau and restarts after exponential failures.

All times in one unit (the caller's: minutes or hours). delta = checkpoint (blocking) time,
M = mean time to interruption, R = restart time, T_s = failure-free solve time.

Expected time to finish one segment of L = tau + delta of work, where every failure (during
work, checkpoint or restart) costs the time since the last checkpoint plus a restart R:

    E(L) = M * e^(R/M) * (e^(L/M) - 1)             (Daly 2006, eq. for T_w per segment)

This is exact for exponential failures (the Monte Carlo in montecarlo.py samples the same
process), so T_w = sum of E over the segments. Goodput (effective training time ratio) at
steady state is tau / E(tau + delta)."""

from __future__ import annotations

import math

import numpy as np

# exp() arguments above ~709 overflow a float; results are capped at MAX_TIME instead.
MAX_EXPONENT = 700.0
MAX_TIME = 1e300


def young_interval(delta: float, mtti: float) -> float:
    """Young (1974): tau = sqrt(2 * delta * M)."""
    return math.sqrt(2.0 * delta * mtti)


def daly_first_order_interval(delta: float, mtti: float, restart: float) -> float:
    """Daly (2006) first order: tau = sqrt(2 * delta * (M + R))."""
    return math.sqrt(2.0 * delta * (mtti + restart))


def daly_interval(delta: float, mtti: float) -> float:
    """Daly (2006) higher order: sqrt(2dM)[1 + (d/2M)^0.5 / 3 + (d/2M) / 9] - d for d < 2M,
    else M. Reproduces Daly's 117 / 57 / 9.1 min (reliability.md)."""
    if delta >= 2.0 * mtti:
        return mtti
    ratio = delta / (2.0 * mtti)
    return math.sqrt(2.0 * delta * mtti) * (1.0 + math.sqrt(ratio) / 3.0 + ratio / 9.0) - delta


def segment_time(length, mtti: float, restart: float):
    """Expected wall-clock time to complete `length` of uninterrupted work (numpy-friendly).
    Capped at MAX_TIME: a segment dozens of MTTIs long never finishes, and results stay
    finite (JSON has no infinity)."""
    length = np.asarray(length, dtype=float)
    with np.errstate(over="ignore"):
        value = (
            mtti
            * np.exp(min(restart / mtti, MAX_EXPONENT))
            * np.expm1(np.minimum(length / mtti, MAX_EXPONENT))
        )
    return np.minimum(value, MAX_TIME)


def goodput(tau, delta: float, mtti: float, restart: float):
    """Useful work per wall-clock time in steady state: tau / E(tau + delta)."""
    tau = np.asarray(tau, dtype=float)
    return tau / segment_time(tau + delta, mtti, restart)


def expected_wall_time(work: float, tau: float, delta: float, mtti: float, restart: float):
    """Expected wall-clock time of `work` with a checkpoint after every full `tau` of work (no
    checkpoint after the final, partial segment)."""
    full = math.floor(work / tau)
    remainder = work - full * tau
    total = full * float(segment_time(tau + delta, mtti, restart))
    if remainder > 0:
        total += float(segment_time(remainder, mtti, restart))
    return total


def goodput_curve(
    optimum: float, delta: float, mtti: float, restart: float, floor: float = 0.0
) -> dict:
    """Goodput against checkpoint interval on a uniform grid (optimum / 25 step, up to 4x the
    optimum, never below `floor`), with the Daly interval inserted and the grid maximum
    marked. Intervals in the caller's unit."""
    step = optimum / 25.0
    grid = np.arange(1, 101) * step
    grid = grid[grid >= floor]
    grid = np.unique(np.append(grid, max(optimum, floor)))
    values = goodput(grid, delta, mtti, restart)
    best = int(np.argmax(values))
    return {
        "step": step,
        "intervals": grid,
        "goodput": values,
        "best_index": best,
    }
