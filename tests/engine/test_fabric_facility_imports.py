"""The fabric and facility engines do not import each other: the system resolution they share
lives in `models_engine/systems.py`; the facility engine reads the fabric engine's typed result
(`engines/fabric/result.py`) and nothing else of it."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINES = Path(__file__).resolve().parents[2] / "models_engine" / "engines"


def _imports(package: str) -> set[str]:
    out = set()
    for path in (ENGINES / package).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                out.add(node.module)
            elif isinstance(node, ast.Import):
                out.update(alias.name for alias in node.names)
    return out


def test_fabric_never_imports_facility():
    assert not {m for m in _imports("fabric") if m.startswith("models_engine.engines.facility")}


def test_facility_imports_only_the_fabric_result_types():
    fabric = {m for m in _imports("facility") if m.startswith("models_engine.engines.fabric")}
    assert fabric <= {"models_engine.engines.fabric.result"}


def test_both_resolve_systems_from_the_shared_module():
    assert "models_engine.systems" in _imports("fabric")
    assert "models_engine.systems" in _imports("facility")
    assert not (ENGINES / "facility" / "systems.py").exists()
