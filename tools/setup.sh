#!/usr/bin/env bash
# Installs what kernclass, its tests, vignettes and benchmarks need (Debian's
# prebuilt r-cran-* packages, or CRAN where apt-get is not available),
# installs kernclass from this checkout, and runs the iris example.
#   bash tools/setup.sh              everything, then the example
#   bash tools/setup.sh --no-example everything, without the example
#   bash tools/setup.sh --deep       also the tools of the deep checks
#                                    (tools/check.sh): clang, valgrind, LaTeX
#                                    and qpdf for the manual, covr
#   bash tools/setup.sh --bench      also scikit-learn (Debian's python3-sklearn),
#                                    a peer in inst/benchmarks/run.R
# The flags combine (tools/check.sh runs --no-example --deep).
set -euo pipefail
cd "$(dirname "$0")/.."

example=yes
deep=no
bench=no
for arg in "$@"; do
  case "$arg" in
    --no-example) example=no ;;
    --deep) deep=yes ;;
    --bench) bench=yes ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

r_pkgs="parallelly testthat roxygen2 pkgbuild knitr rmarkdown e1071 kernlab MASS mlbench quadprog future"
# Debian packages of the deep checks: compilers for the warnings check (clang
# needs libomp-dev for OpenMP), valgrind, and for R CMD check --as-cran the
# PDF manual (pdflatex, texi2dvi), the HTML manual (tidy) and qpdf.
deep_debs="gcc clang libomp-dev valgrind qpdf tidy texinfo texlive-latex-base
  texlive-latex-recommended texlive-fonts-recommended"
[ "$deep" = yes ] && r_pkgs="$r_pkgs covr"

missing=$(Rscript --vanilla -e "p <- strsplit('$r_pkgs', ' ')[[1]]; cat(p[!vapply(p, requireNamespace, logical(1), quietly = TRUE)])")
debs=""
command -v pandoc >/dev/null 2>&1 || debs="pandoc"
if [ "$bench" = yes ]; then
  if command -v dpkg-query >/dev/null 2>&1; then
    dpkg-query -W -f='${Status}' python3-sklearn 2>/dev/null | grep -q 'ok installed' ||
      debs="$debs python3-sklearn"
  else
    echo "setup: --bench needs Debian's python3-sklearn (or scikit-learn for python3)" >&2
  fi
fi
if [ "$deep" = yes ]; then
  if command -v dpkg-query >/dev/null 2>&1; then
    for d in $deep_debs; do
      dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q 'ok installed' || debs="$debs $d"
    done
  else
    echo "setup: --deep needs Debian's packages (or their equivalents): $deep_debs" >&2
  fi
fi

if [ -n "$missing$debs" ]; then
  echo "setup: installing: $missing $debs"
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    for p in $missing; do debs="$debs r-cran-$(echo "$p" | tr 'A-Z' 'a-z')"; done
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $debs >/dev/null
  elif [ -n "$missing" ]; then
    # the repository R is configured with (its site profile: no --vanilla)
    Rscript -e "install.packages(strsplit('$missing', ' ')[[1]], repos = getOption('repos'))"
  fi
fi

log=$(mktemp)
R CMD INSTALL --preclean --clean --no-multiarch . >"$log" 2>&1 || { cat "$log"; rm -f "$log"; exit 1; }
rm -f "$log"
echo "setup: kernclass $(Rscript -e 'cat(format(packageVersion("kernclass")))') installed"

if [ "$example" = yes ]; then
  Rscript --vanilla inst/examples/iris.R
fi
