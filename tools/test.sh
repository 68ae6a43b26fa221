#!/usr/bin/env bash
# Runs the test suite against this checkout, built and installed into a
# temporary library. Ends with the line "N passed, N failed"; exits non-zero
# when any test fails, errors or is skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
lib=$(mktemp -d)
trap 'rm -rf "$lib"' EXIT
if ! R CMD INSTALL --preclean --no-multiarch -l "$lib" . >"$lib/install.log" 2>&1; then
  cat "$lib/install.log"
  echo "0 passed, 1 failed"
  exit 1
fi
KERNCLASS_LIB="$lib" Rscript --vanilla -e '
  .libPaths(c(Sys.getenv("KERNCLASS_LIB"), .libPaths()))
  library(testthat)
  library(kernclass)
  res <- as.data.frame(test_dir("tests/testthat", package = "kernclass", load_package = "installed",
                                reporter = SummaryReporter$new(show_praise = FALSE, max_reports = 50),
                                stop_on_failure = FALSE))
  passed <- sum(res$passed)
  failed <- sum(res$failed) + sum(res$error)
  skipped <- sum(res$skipped)
  cat(sprintf("%d passed, %d failed%s\n", passed, failed,
              if (skipped) sprintf(", %d skipped", skipped) else ""))
  quit(status = if (failed + skipped > 0) 1 else 0)
'
