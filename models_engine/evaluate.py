"""Run every engine on a design, in dependency order, and return plain JSON-ready results."""

from collections.abc import Callable

from models_engine.catalog import Catalog, load_catalog
from models_engine.engines.performance.memory_fit import evaluate_memory
from models_engine.hardware import resolve_gpu
from models_engine.spec import (
    SPEC_VERSION,
    SpecValidationError,
    parse_design,
    reference_errors,
    spec_hash,
)

ENGINE_ORDER = ["performance"]

ProgressCallback = Callable[[str, list[str]], None]


def catalog_with(entries: dict[str, list[dict]] | None) -> Catalog:
    """The built-in catalog plus a team's own entries ({kind: [entry, ...]})."""
    catalog = load_catalog()
    for kind, items in (entries or {}).items():
        if items:
            catalog = catalog.with_entries(kind, items)
    return catalog


def evaluate(
    spec_doc: dict,
    on_progress: ProgressCallback | None = None,
    catalog_entries: dict[str, list[dict]] | None = None,
) -> dict:
    """Validate `spec_doc` (raises SpecValidationError naming the field) and run the engines.

    `on_progress(engine, completed)` is called before each engine starts; `catalog_entries`
    adds a team's own catalog entries to the built-in catalog.
    """
    spec = parse_design(spec_doc)
    catalog = catalog_with(catalog_entries)
    unknown = reference_errors(spec, catalog)
    if unknown:
        raise SpecValidationError(unknown)
    gpu = resolve_gpu(spec.compute, catalog)
    completed: list[str] = []
    results: dict = {
        "engine_version": _engine_version(),
        "spec_version": SPEC_VERSION,
        "spec_hash": spec_hash(spec),
        "gpu": {"id": gpu.id, "name": gpu.name},
    }
    engines = {"performance": lambda: evaluate_memory(spec, gpu)}
    for name in ENGINE_ORDER:
        if on_progress:
            on_progress(name, list(completed))
        results[name] = engines[name]()
        completed.append(name)
    results["headline"] = _headline(results)
    return results


def _headline(results: dict) -> dict:
    memory = results["performance"]["memory"]
    return {
        "memory_per_gpu_gib": memory["total_gib"],
        "fits_in_hbm": memory["fits"],
        "parameters_total_b": results["performance"]["model"]["parameters_total_b"],
    }


def _engine_version() -> str:
    from models_engine import __version__

    return __version__
