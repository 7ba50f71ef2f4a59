#!/usr/bin/env bash
# Create the virtual environment bench/bench_inspect.py runs inspect_ai in, outside the repo.
#
#     bash bench/setup_inspect.sh      # prints the venv's python; skips when already set up
#
# CHECKBENCH_INSPECT_VENV sets the venv (default ~/.cache/checkbench/inspect-venv);
# INSPECT_AI_SPEC picks the inspect-ai requirement (default: the newest release).
# inspect_ai's OpenAI provider needs the openai package, installed beside it.
set -euo pipefail

venv="${CHECKBENCH_INSPECT_VENV:-$HOME/.cache/checkbench/inspect-venv}"
spec="${INSPECT_AI_SPEC:-inspect-ai}"
python="${PYTHON:-python3}"

fail() {
    echo "setup_inspect: $*" >&2
    exit 1
}

if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c 'import inspect_ai, openai' 2>/dev/null; then
    echo "$venv/bin/python"
    exit 0
fi

# pip as set up here warns about absent local indexes; keep its other messages
pip_quiet() {
    "$venv/bin/python" -m pip --quiet "$@" 2>&1 |
        { grep -v 'is ignored: it is neither a file nor a directory' || true; } >&2
}

command -v "$python" >/dev/null || fail "$python not found (set PYTHON)"
mkdir -p "$(dirname "$venv")" || fail "cannot create $(dirname "$venv")"
repo="$(cd "$(dirname "$0")/.." && pwd -P)"
case "$(cd "$(dirname "$venv")" && pwd -P)/" in
"$repo"/*) fail "the venv must live outside the repo: $venv" ;;
esac
echo "creating $venv ..." >&2
"$python" -m venv "$venv" || fail "could not create the venv at $venv"
pip_quiet install --upgrade pip || fail "pip upgrade in $venv failed"
pip_quiet install "$spec" openai || fail "pip install $spec openai failed"
"$venv/bin/python" -c 'import inspect_ai, openai' || fail "inspect_ai does not import in $venv"
echo "inspect_ai $("$venv/bin/python" -c 'import inspect_ai; print(inspect_ai.__version__)')" >&2
echo "$venv/bin/python"
