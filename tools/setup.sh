#!/usr/bin/env bash
# Installs kernclass from this checkout, with its vignettes, and what its
# tests, vignettes and benchmarks need; then runs the iris example.
#   bash tools/setup.sh               everything, then the example
#   bash tools/setup.sh --no-example  everything, without the example
#   bash tools/setup.sh --no-suggests kernclass with its imports and what its
#                                     vignettes need only (no test packages)
#   bash tools/setup.sh --deps-only   what is needed, not kernclass itself
#   bash tools/setup.sh --deep        also the tools of the deep checks
#                                     (tools/check.sh): clang, valgrind, LaTeX
#                                     and qpdf for the manual, covr; for the
#                                     site, pkgdown, chromium, node and npm,
#                                     and tools/package.json's npm packages
#                                     (playwright-core, KaTeX, pkgdown's scripts,
#                                     and onnxruntime-node, which runs
#                                     test-onnx.R's exported models)
#   bash tools/setup.sh --bench       also scikit-learn (Debian's python3-sklearn),
#                                     a peer in inst/benchmarks/run.R
# The flags combine (tools/check.sh runs --deps-only --deep).
#
# Where: as root, or with sudo that needs no password, apt-get installs
# Debian's r-cran-* packages and the system packages (pandoc, compilers);
# otherwise they are named and the R packages come from the repository R is
# configured with (getOption("repos"); this project names no mirror). R
# packages go to the first library of .libPaths() when it is writable, else
# to the user's library (R_LIBS_USER, created as install.packages() offers).
# After apt-get, what Debian lacks or ships too old for the rest (CRAN's
# tidymodels need newer rlang, vctrs, ...) also comes from the repository
# (tools/rdeps.R). kernclass is built by R CMD build, vignettes included, and
# the tarball installed, so that vignette("kernclass") works.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

example=yes deep=no bench=no suggests=yes kernclass=yes
for arg in "$@"; do
  case "$arg" in
    --no-example) example=no ;;
    --no-suggests) suggests=no ;;
    --deps-only) kernclass=no example=no ;;
    --deep) deep=yes ;;
    --bench) bench=yes ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

say() { printf 'setup: %s\n' "$*"; }
start=$SECONDS
step_start=$SECONDS
step() {
  say "[$1] $2"
  step_start=$SECONDS
}
took() { say "    done ($((SECONDS - step_start)) s)"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# R packages: what kernclass imports, what its vignettes need, then its
# Suggests and the development tools (roxygen2, the test runner's testthat).
core="desc:Depends,Imports"
vign="knitr rmarkdown"
rest="desc:Suggests testthat roxygen2 pkgbuild"
# pkgdown 2.1 or later: Debian's 2.0.7 writes pages that load MathJax from
# file:///usr/share and scripts from CDNs (tools/check.sh site fails on them);
# its examples need evaluate 1.0 (a suggested package of pkgdown's)
[ "$deep" = yes ] && rest="$rest covr pkgdown(>=2.1.0) evaluate(>=1.0.0)"
[ "$suggests" = yes ] || rest=""
# Debian packages of the deep checks: compilers for the warnings check (clang
# needs libomp-dev for OpenMP), valgrind, for R CMD check --as-cran the PDF
# manual (pdflatex, texi2dvi), the HTML manual (tidy) and qpdf, and libcurl's
# headers, without which CRAN's curl (under covr, the coverage check) does
# not build where Debian's r-cran-covr cannot be installed; for the site
# check, the headers CRAN's ragg (under pkgdown) builds with, Chromium, and
# node with npm (which installs tools/package.json's packages at the end:
# playwright-core, the driver of Debian's Chromium, and what the site serves).
deep_debs="gcc clang libomp-dev valgrind qpdf tidy texinfo texlive-latex-base
  texlive-latex-recommended texlive-fonts-recommended libcurl4-openssl-dev
  libfreetype-dev libpng-dev libtiff-dev libjpeg-dev libwebp-dev chromium"

# ---- 1: what is missing ----------------------------------------------------
step 1/5 "what is missing"
missing=$(Rscript tools/rdeps.R missing $core $vign $rest | tail -n 1)
debs=""
missing_tools=""
have_deb() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
need_tool() {  # need_tool <command> <Debian package>
  command -v "$1" >/dev/null 2>&1 || { debs="$debs $2"; missing_tools="$missing_tools $1"; }
}
has_pandoc() {
  command -v pandoc >/dev/null 2>&1 || [ -x "${RSTUDIO_PANDOC:-/nonexistent}/pandoc" ]
}
has_pandoc || { debs="$debs pandoc"; missing_tools="$missing_tools pandoc"; }
need_tool make make
need_tool "$(R CMD config CC | cut -d' ' -f1)" gcc
# C++ and Fortran: for R packages built from source (e1071, quadprog, ...)
need_tool "$(R CMD config CXX | cut -d' ' -f1)" g++
need_tool "$(R CMD config FC | cut -d' ' -f1)" gfortran
if command -v dpkg-query >/dev/null 2>&1; then
  if [ "$deep" = yes ]; then
    for d in $deep_debs; do have_deb "$d" || debs="$debs $d"; done
    # node and npm as commands: a node from elsewhere (NodeSource's nodejs
    # carries npm and conflicts with Debian's) is used as it is
    need_tool node nodejs
    need_tool npm npm
  fi
  if [ "$bench" = yes ]; then have_deb python3-sklearn || debs="$debs python3-sklearn"; fi
else
  [ "$deep" = yes ] && say "--deep needs these Debian packages (or their equivalents): $deep_debs"
  [ "$bench" = yes ] && say "--bench needs scikit-learn for python3"
fi
say "    R packages missing or too old: ${missing:-none}"
say "    system packages missing: ${debs:-none}"

# ---- 2: Debian packages ----------------------------------------------------
sudo=""
can_apt=no
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    can_apt=yes
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    can_apt=yes sudo="sudo -n"
  fi
fi

# apt-get's output, one line per package set up ("[k/N] name"; in place on a
# terminal); the whole output is in $tmp/apt.log.
apt_progress() {
  awk -v tty="$([ -t 1 ] && echo 1 || echo 0)" '
    / newly installed/ { total = $1 + $3 }
    /^Need to get/ { print "setup:     " $0; fflush() }
    /^Setting up / {
      k++
      if (tty) printf "\rsetup:     [%d/%d] %-45s", k, total, $3
      else printf "setup:     [%d/%d] %s\n", k, total, $3
      fflush()
    }
    END { if (tty && k) printf "\n" }'
}

if [ "$can_apt" = yes ] && [ -n "$missing$debs" ]; then
  step 2/5 "Debian packages (apt-get)"
  $sudo apt-get update -qq
  r_debs=""
  for p in $missing; do
    d="r-cran-$(echo "$p" | tr 'A-Z' 'a-z')"
    if apt-cache show --no-all-versions "$d" >/dev/null 2>&1; then r_debs="$r_debs $d"; fi
  done
  say "    installing $(echo $r_debs $debs | wc -w) packages and their dependencies:" $r_debs $debs
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
      -o Dpkg::Use-Pty=0 $r_debs $debs 2>&1 | tee "$tmp/apt.log" | apt_progress; then
    tail -n 30 "$tmp/apt.log"
    say "apt-get failed (above)"
    exit 1
  fi
  took
elif [ -n "$debs" ]; then
  step 2/5 "Debian packages: cannot install them"
  if command -v apt-get >/dev/null 2>&1; then
    say "    not root, and sudo is missing or needs a password: apt-get cannot run."
    say "    Ask an administrator for: apt-get install$debs (or run this as root)."
  else
    say "    no apt-get here: install the equivalents of:$debs"
  fi
  case " $missing_tools " in
    *" pandoc "*) say "    without pandoc the vignettes are not built (pandoc.org has" \
                      "binaries; RSTUDIO_PANDOC may name RStudio's)" ;;
  esac
else
  step 2/5 "Debian packages: nothing to install"
fi
cc=$(R CMD config CC | cut -d' ' -f1)
if ! command -v "$cc" >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
  say "no C compiler ($cc) or no make: kernclass cannot be built"
  exit 1
fi

# ---- 3: R packages from the repository ------------------------------------
step 3/5 "R packages from the repository R is configured with"
lib=$(Rscript tools/rdeps.R library | tail -n 1)
say "    library: $lib"
# fs (under rmarkdown) needs the system's libuv, or is told to build its own
if [ -z "${USE_BUNDLED_LIBUV:-}" ] &&
   ! { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libuv; }; then
  export USE_BUNDLED_LIBUV=1
fi
# what kernclass imports: a failure ends the set-up; the rest: a failure is
# reported (no vignettes; the tests and examples that need a package skip)
Rscript tools/rdeps.R install "$lib" $core ||
  { say "the packages kernclass imports did not install (above)"; exit 1; }
Rscript tools/rdeps.R install "$lib" $vign ||
  say "    knitr or rmarkdown did not install (above): no vignettes"
if [ -n "$rest" ] && ! Rscript tools/rdeps.R install "$lib" $rest; then
  say "    not all of the Suggests installed (above): the tests that need them skip"
fi
still=$(Rscript tools/rdeps.R missing $core $vign $rest | tail -n 1)
[ -z "$still" ] || say "    still missing: $still"
took

# ---- 4: kernclass, with its vignettes --------------------------------------
if [ "$kernclass" = yes ]; then
  step 4/5 "kernclass: R CMD build (vignettes included), R CMD INSTALL into $lib"
  build_opts=""
  if ! has_pandoc; then
    build_opts="--no-build-vignettes"
    say "    pandoc is missing: building without vignettes"
  elif ! Rscript -e 'quit(status = !all(vapply(c("knitr", "rmarkdown"), requireNamespace, NA, quietly = TRUE)))'; then
    build_opts="--no-build-vignettes"
    say "    knitr or rmarkdown is missing: building without vignettes"
  fi
  (cd "$tmp" && R CMD build $build_opts "$root" >build.log 2>&1) ||
    { cat "$tmp/build.log"; say "R CMD build failed (above)"; exit 1; }
  tarball=$(ls "$tmp"/kernclass_*.tar.gz)
  R CMD INSTALL --no-multiarch -l "$lib" "$tarball" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; say "R CMD INSTALL failed (above)"; exit 1; }
  Rscript -e 'cat("setup:     kernclass", format(packageVersion("kernclass")), "in",
                  dirname(find.package("kernclass")), "\n")
              v <- tools::getVignetteInfo("kernclass")[, "Topic"]
              cat("setup:     vignettes:", if (length(v)) paste(v, collapse = ", ") else "none",
                  "(vignette(\"kernclass\"), browseVignettes(\"kernclass\"))\n")'
  took
fi

# the npm packages of the site and its check (the browser driver, KaTeX,
# pkgdown's scripts) and of test-onnx.R (onnxruntime-node), as
# tools/package-lock.json pins them, into tools/node_modules (which git and
# R CMD build leave out). onnxruntime-node's package holds its CPU runtime;
# its install script would add the CUDA runtime on Linux x64, downloaded
# from api.nuget.org (failing npm ci where that cannot be reached):
# ONNXRUNTIME_NODE_INSTALL=skip keeps the install to the npm registry.
npm_current() {  # every package of the lock file installed, at its version
  node -e 'const l = require("./tools/package-lock.json").packages;
    const ok = Object.keys(l).filter((k) => k).every((k) => {
      try { return require("./tools/" + k + "/package.json").version === l[k].version; }
      catch (e) { return false; }
    });
    process.exit(ok ? 0 : 1);' 2>/dev/null
}
if [ "$deep" = yes ]; then
  if npm_current; then
    say "    npm packages for the site, its check and the ONNX tests: in tools/node_modules"
  elif command -v npm >/dev/null 2>&1; then
    (cd tools && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error \
        >"$tmp/npm.log" 2>&1) &&
      say "    npm packages for the site, its check and the ONNX tests: tools/node_modules" ||
      { cat "$tmp/npm.log"
        say "    npm ci in tools/ failed (above): no site, no site check, no ONNX runtime"; }
  else
    say "    no npm: the site (tools/site.sh) and its check cannot be built, test-onnx.R skips"
  fi
fi

# ---- 5: the example ---------------------------------------------------------
if [ "$example" = yes ]; then
  step 5/5 "the example: inst/examples/iris.R"
  Rscript --vanilla inst/examples/iris.R
fi
say "finished in $((SECONDS - start)) s"
