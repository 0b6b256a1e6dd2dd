"""Cluster Studio engines: pure Python + numpy. Nothing here imports Django, DRF or Celery.

`evaluate(spec_dict)` validates a design spec and runs every engine in dependency order,
returning plain JSON-ready data with units in the key names.
"""

from models_engine.pipeline import ENGINE_ORDER, evaluate

__version__ = "0.1.0"

__all__ = ["ENGINE_ORDER", "__version__", "evaluate"]
