#!/usr/bin/env bash
# Builds the pkgdown site of this checkout: the home page from README.md, the
# reference grouped by task (_pkgdown.yml), the vignettes and
# vignettes/articles/ as articles, NEWS.md as the changelog.
#   bash tools/site.sh [DIR]     into DIR (default docs/, which git ignores)
# pkgdown is not among kernclass's imports: `bash tools/setup.sh --deps-only
# --deep` installs it. pkgdown installs kernclass from this checkout into a
# temporary library and runs every example and vignette; the benchmark
# article is text only (its tables are those of the last benchmark run).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-docs}")
Rscript -e 'quit(status = !requireNamespace("pkgdown", quietly = TRUE))' || {
  echo "site: pkgdown is missing: bash tools/setup.sh --deps-only --deep installs it" >&2
  exit 1
}
# Offline: pkgdown would look kernclass up on CRAN and Bioconductor for the
# home page's links, and downlit each package the pages name that is not
# installed (broom, ...) in CRAN's package database: such names get no link.
Rscript --vanilla -e '
  args <- commandArgs(TRUE)
  options(pkgdown.internet = FALSE)
  utils::assignInNamespace("CRAN_urls", function() {
    data.frame(Package = character(), URL = character())
  }, "downlit")
  pkgdown::build_site(".", override = list(destination = args[1]), preview = FALSE,
                      new_process = FALSE, install = TRUE)
  ' "$out"
echo "site: built into $out"
