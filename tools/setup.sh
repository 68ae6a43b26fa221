#!/usr/bin/env bash
# Installs what kernclass, its tests, vignettes and benchmarks need (Debian's
# prebuilt r-cran-* packages, or CRAN where apt-get is not available),
# installs kernclass from this checkout, and runs the iris example.
#   bash tools/setup.sh              everything, then the example
#   bash tools/setup.sh --no-example everything, without the example
set -euo pipefail
cd "$(dirname "$0")/.."

r_pkgs="testthat roxygen2 knitr rmarkdown e1071 kernlab MASS mlbench quadprog"
missing=$(Rscript --vanilla -e "p <- strsplit('$r_pkgs', ' ')[[1]]; cat(p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)])")
need_pandoc=""
command -v pandoc >/dev/null 2>&1 || need_pandoc="pandoc"

if [ -n "$missing$need_pandoc" ]; then
  echo "setup: installing: $missing $need_pandoc"
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    debs="$need_pandoc"
    for p in $missing; do debs="$debs r-cran-$(echo "$p" | tr 'A-Z' 'a-z')"; done
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $debs >/dev/null
  else
    Rscript --vanilla -e "install.packages(strsplit('$missing', ' ')[[1]], repos = 'https://cloud.r-project.org')"
  fi
fi

R CMD INSTALL --preclean --no-multiarch . >/tmp/kernclass-install.log 2>&1 ||
  { cat /tmp/kernclass-install.log; exit 1; }
echo "setup: kernclass $(Rscript -e 'cat(format(packageVersion("kernclass")))') installed"

if [ "${1:-}" != "--no-example" ]; then
  Rscript --vanilla inst/examples/iris.R
fi
