# Shared by bin/up and bin/test: create .venv with uv on Python 3.12 and install the pinned stack.
# Idempotent: a second run only checks that everything is already there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export UV_PYTHON_DOWNLOADS=never
export PYENV_VERSION="${PYENV_VERSION:-3.12.1}"

find_python() {
  for candidate in "${STUDIO_PYTHON:-}" "$HOME/.pyenv/versions/$PYENV_VERSION/bin/python" python3.12 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
      "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      command -v "$candidate"; return 0
    fi
  done
  echo "Python 3.12+ is required (set STUDIO_PYTHON)" >&2; return 1
}

ensure_venv() {
  local extras="${1:-}"
  local py; py="$(find_python)"
  # uv through the chosen interpreter: a pyenv shim named uv may point at another Python.
  "$py" -m uv --version >/dev/null 2>&1 ||
    "$py" -m pip install --quiet --disable-pip-version-check uv
  local uv="$py -m uv"
  [ -x .venv/bin/python ] || $uv venv --quiet --python "$py" .venv
  if [ -n "$extras" ]; then
    $uv pip install --quiet --python .venv/bin/python -e ".[$extras]"
  else
    $uv pip install --quiet --python .venv/bin/python -e .
  fi
  export PATH="$ROOT/.venv/bin:$PATH"
}
