"""One model of the cluster: engines read each other only through the typed results the
pipeline hands them, and the pipeline's declared graph is the order they run in."""

from __future__ import annotations

import ast
from pathlib import Path

from models_engine.engines.result_base import EngineResult
from models_engine.pipeline import STEPS

ENGINES = Path(__file__).resolve().parents[2] / "models_engine" / "engines"

# Calls into another engine's model functions (not its results), each with why it is allowed.
ALLOWED_CALLS = {
    # The collectives engine is the communication model the step is built from.
    ("performance", "collectives"),
    # The scaling sweep runs the owners themselves at other GPU counts.
    ("sweep", "performance"),
    ("sweep", "fabric"),
    ("sweep", "storage"),  # the storage supply at each scale (`evaluate_storage_supply`)
    ("sweep", "regions"),
    # A design-space sweep runs the cost engine itself, over arrays of its levers
    # (`cost.levers.cost_over_levers`) and once per group (`evaluate_cost`).
    ("sweep", "cost"),
    # ... and takes the facility power at each swept PUE from the facility engine's own energy
    # formula (`facility.power.energy_block`, facility kW = IT kW x PUE per site).
    ("sweep", "facility"),
    # The WAN exchange time is the collectives model's ring over sites.
    ("regions", "collectives"),
    # The cable schedule and the DCIM IPAM take each uplink's ports and each switch's addresses
    # from the network engine's own plan, regenerated on demand as its config renderer does.
    ("physical", "network"),
}


def _imported_engine_modules(path: Path, engine: str) -> set[tuple[str, str]]:
    """(other engine, module inside it) for every import of another engine package."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        modules = []
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.level == 0:
                modules = [node.module]
            elif node.level == 2:
                modules = [f"models_engine.engines.{node.module}"]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        for module in modules:
            parts = module.split(".")
            if parts[:2] == ["models_engine", "engines"] and len(parts) > 2:
                other = parts[2]
                if other not in (engine, "result_base"):
                    found.add((other, ".".join(parts[3:])))
    return found


def test_engines_read_each_other_only_through_typed_results():
    offenders = {}
    for path in ENGINES.rglob("*.py"):
        relative = path.relative_to(ENGINES)
        if len(relative.parts) < 2:
            continue
        engine = relative.parts[0]
        bad = {
            f"{other}.{module}" if module else other
            for other, module in _imported_engine_modules(path, engine)
            if module != "result" and (engine, other) not in ALLOWED_CALLS
        }
        if bad:
            offenders[str(relative)] = sorted(bad)
    assert offenders == {}


def test_no_guessed_key_lookups_remain():
    guessers = []
    for path in ENGINES.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in ("pick", "dig", "pick_number"):
                guessers.append(f"{path.relative_to(ENGINES)}:{node.name}")
    assert guessers == []
    assert not (ENGINES / "cost" / "fabric_fallback.py").exists()
    assert not (ENGINES / "reliability" / "lookup.py").exists()


def test_the_declared_graph_runs_every_consumer_after_what_it_consumes():
    seen: set[str] = set()
    for step in STEPS:
        assert set(step.consumes) <= seen, f"{step.name} consumes {step.consumes} before they run"
        seen.add(step.name)


def test_every_engine_has_a_typed_result_module():
    for step in STEPS:
        package = {"scaling": "sweep", "storage_supply": "storage"}.get(step.name, step.name)
        assert (ENGINES / package / "result.py").exists(), package
    assert EngineResult.model_config["frozen"] is True
    assert EngineResult.model_config["extra"] == "forbid"
