#!/usr/bin/env bash
# The whole test suite on a fresh machine: system packages, a virtual environment, then pytest.
# README's test command and .ci/run both call this script; extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's Chromium drives the real-browser tests (Playwright cannot download its own browser here);
# the Noto CJK fonts make Chinese render in charts and screenshots; the class-mode tests start their own
# redis-server (several app replicas share rooms through Redis).
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/redis-server ] || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || ! fc-list 2>/dev/null | grep -qi "Noto Color Emoji"; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver fonts-noto-cjk fonts-noto-color-emoji fontconfig redis-server >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
# Byte code is written by the first import of each module and read by every later process: pip compiling all of
# site-packages up front (--no-compile skips it) took 41 of its 88 s on one core, mostly for modules nothing here
# imports, and a caller's PYTHONDONTWRITEBYTECODE would make every process compile its imports again.
unset PYTHONDONTWRITEBYTECODE
# The pinned versions the suite passed on (requirements-dev.txt holds the ranges they were chosen from). pip installs
# one package after another and spends its time per package more than per byte (torch: 6 of 48 s), so two pips
# each take every other pin of the lock, without resolving (the lock holds every dependency): 24 s instead of 48 on
# two cores. The last install resolves the whole lock as before: it adds what pip-compile leaves out of a lock
# (setuptools) and fails where the pins do not fit together.
pins() { grep -E '^[A-Za-z0-9]' requirements-dev.lock | awk -v part="$1" 'NR % 2 == part'; }
PIP=(.venv/bin/python -m pip install -q --no-compile --disable-pip-version-check)
# shellcheck disable=SC2046 # one argument a pin: the lock's pins hold no spaces
"${PIP[@]}" --no-deps $(pins 0) &
half=$!
# shellcheck disable=SC2046
"${PIP[@]}" --no-deps $(pins 1)
wait "$half"
"${PIP[@]}" -r requirements-dev.lock
.venv/bin/ruff check --no-cache .
.venv/bin/ruff format --no-cache --check .
# Two workers, each given whole test files (their module fixtures, such as the browser tests' server, start once),
# the longest files first (tests/conftest.py's HEAVIEST_FIRST; xdist would otherwise order files by test count).
exec .venv/bin/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder "$@"
