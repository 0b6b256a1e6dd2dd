"""The one hard boundary: models_engine never imports Django, DRF or Celery."""

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "models_engine"
FORBIDDEN = ("django", "rest_framework", "celery", "kombu", "studio")


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_no_engine_module_imports_the_web_stack():
    offenders = {
        str(path.relative_to(ENGINE)): sorted(_imported_roots(path) & set(FORBIDDEN))
        for path in ENGINE.rglob("*.py")
    }
    offenders = {name: roots for name, roots in offenders.items() if roots}
    assert offenders == {}


def test_engine_imports_and_evaluates_with_the_web_stack_unimportable(tmp_path):
    """Run the engine in a fresh interpreter where importing django/celery raises."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {FORBIDDEN!r}:\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
    )
    example = ENGINE.parent / "examples" / "h100-256-onprem-starter.json"
    code = (
        "import json, models_engine\n"
        f"r = models_engine.evaluate(json.load(open({str(example)!r})))\n"
        "assert r['performance']['memory']['per_gpu_gib']\n"
        "import sys; assert not any(m.split('.')[0] in ('django','celery') for m in sys.modules)\n"
    )
    env = {"PYTHONPATH": f"{tmp_path}:{ENGINE.parent}", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
