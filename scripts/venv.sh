# Sourced by ./run and ./test: create or refresh .venv so that a fresh clone needs no manual step.
# Reinstalls only when pyproject.toml changed (a stamp holds its hash and the extras installed).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
extras="${1:-}"
venv="$top/.venv"
want="$(sha256sum "$top/pyproject.toml" | cut -c1-16)-${extras}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
  spec="$top"; [ -n "$extras" ] && spec="$top[$extras]"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$spec"
  echo "$want" > "$venv/.stamp"
fi
