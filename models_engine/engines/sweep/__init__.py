"""Sweeps: many variants of one design evaluated together."""

from models_engine.engines.sweep.scaling import scaling_curve

__all__ = ["scaling_curve"]
