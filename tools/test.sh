#!/usr/bin/env bash
# Runs the test suite against this checkout, built and installed into a
# temporary library. Ends with the line "N passed, N failed"; exits non-zero
# when any test fails or errors, and under CI (CI=true) or with
# KERNCLASS_STRICT=true also when one is skipped (tools/run-tests.R).
set -uo pipefail
cd "$(dirname "$0")/.."
lib=$(mktemp -d)
trap 'rm -rf "$lib"' EXIT
# compile the C files side by side (make's jobs; a caller's MAKEFLAGS wins)
export MAKEFLAGS="${MAKEFLAGS:--j$(nproc 2>/dev/null || echo 2)}"
if ! R CMD INSTALL --preclean --clean --no-multiarch -l "$lib" . >"$lib/install.log" 2>&1; then
  cat "$lib/install.log"
  echo "0 passed, 1 failed"
  exit 1
fi
KERNCLASS_LIB="$lib" Rscript --vanilla tools/run-tests.R
