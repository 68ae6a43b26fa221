#!/usr/bin/env bash
# Builds the pkgdown site of this checkout: the home page from README.md, the
# reference grouped by task (_pkgdown.yml), the vignettes and
# vignettes/articles/ as articles, NEWS.md as the changelog.
#   bash tools/site.sh [DIR]     into DIR (default docs/, which git ignores)
# pkgdown is not among kernclass's imports: `bash tools/setup.sh --deps-only
# --deep` installs it. pkgdown installs kernclass from this checkout into a
# temporary library and runs every example and vignette; the benchmark
# article is text only (its tables are those of the last benchmark run).
# The build needs no network: the pages' scripts and KaTeX come from
# tools/node_modules (npm ci there: setup.sh --deep), see tools/site.R.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-docs}")
Rscript -e 'quit(status = !requireNamespace("pkgdown", quietly = TRUE) ||
                 packageVersion("pkgdown") < "2.1.0")' || {
  echo "site: pkgdown (>= 2.1.0) is missing: bash tools/setup.sh --deps-only --deep installs it" >&2
  exit 1
}
Rscript --vanilla tools/site.R "$out"
echo "site: built into $out"
