"""The architecture holds: the import-linter contracts in pyproject.toml (studio layers, the
engine boundary, the engine's public face) and the engine runs with the web stack absent."""

import os
import subprocess
import sys
from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]
WEB_STACK = ("django", "rest_framework", "celery", "kombu", "studio")


def test_import_contracts_are_kept(monkeypatch):
    monkeypatch.chdir(ROOT)  # the root packages are found from the working directory
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_engine_imports_and_evaluates_with_the_web_stack_unimportable(tmp_path):
    """A fresh interpreter where importing django/celery/... raises: the static contract
    cannot see an import made at run time (importlib, a plugin), this can."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {WEB_STACK!r}:\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
    )
    example = ROOT / "examples" / "h100-256-onprem-starter.json"
    code = (
        "import json, models_engine\n"
        f"r = models_engine.evaluate(json.load(open({str(example)!r})))\n"
        "assert r['performance']['memory']['per_gpu_gib']\n"
    )
    env = {"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
