#!/usr/bin/env bash
# Deep check: runs tools/valgrind.R under valgrind (memcheck); exits non-zero
# on any memory error in the package's C code. Needs valgrind (apt-get install
# valgrind) and the package installed (bash tools/setup.sh --no-example).
set -euo pipefail
cd "$(dirname "$0")/.."
R -d "valgrind --error-exitcode=3 --leak-check=no -q" --vanilla -f tools/valgrind.R >/tmp/kernclass-valgrind.log 2>&1 ||
  { grep -E '^==[0-9]+==' /tmp/kernclass-valgrind.log | head -40; echo "valgrind: errors (log /tmp/kernclass-valgrind.log)"; exit 1; }
echo "valgrind: no memory errors"
