#!/usr/bin/env bash
# Deep checks of kernclass, one command each (run from anywhere):
#   bash tools/check.sh as-cran     R CMD build + R CMD check --as-cran: no ERROR, WARNING or NOTE
#                                   (KERNCLASS_CHECK_NO_TESTS=1: without its test run, for
#                                   .ci/run, which has just run the same tests)
#   bash tools/check.sh depends-only the same with only the packages kernclass depends on
#                                   and imports (_R_CHECK_DEPENDS_ONLY_=true): every use
#                                   of a Suggests package is conditional
#   bash tools/check.sh warnings    src/ compiled by gcc and clang with -Wall -Wextra -pedantic:
#                                   no warning
#   bash tools/check.sh valgrind    tools/valgrind.R and the test suite (all but two slow
#                                   files) under valgrind memcheck: no memory error, no
#                                   definitely lost block
#   bash tools/check.sh sanitizers  the test suite with src/ built with AddressSanitizer and
#                                   UndefinedBehaviorSanitizer: no report
#   bash tools/check.sh gctorture   tools/gctorture.R: every .Call entry under gctorture(TRUE),
#                                   through the exported functions and directly
#                                   (tools/gctorture-entries.R); ends with its count
#                                   "N passed, N failed", which .ci/run adds to the tests'
#   bash tools/check.sh coverage    R and C line coverage by covr (fails below 90%)
#   bash tools/check.sh fuzz        test-fuzz-e1071.R and test-input-edge.R with KERNCLASS_DEEP=1:
#                                   300 random problems against e1071 (minutes)
#   bash tools/check.sh site        the pkgdown site built (tools/site.sh) and every page opened
#                                   in headless Chromium (tools/site-check.js): every page
#                                   loads, every image renders, every internal link resolves,
#                                   no console error, all math typeset; screenshots of the
#                                   home page, a reference page with a plot, an article and a
#                                   reference page with a formula in $KERNCLASS_SITE_SHOTS
#                                   (default /tmp/kernclass-site-check)
#   bash tools/check.sh all         all of them, in this order (several names run those)
# Each installs what it needs (bash tools/setup.sh --deps-only --deep; not with
# KERNCLASS_CHECK_NO_SETUP=1, for .ci/run, which has just run the set-up), works
# on a copy of the tracked files of this checkout (uncommitted edits
# included) in a temporary directory, leaves no build products in the tree,
# ends with the line "check <what>: PASS" or "check <what>: FAIL ..." and
# exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# the npm packages in this checkout's tools/node_modules (setup.sh --deep),
# for the checks that run on copies without them: the site's (KaTeX,
# pkgdown's scripts, playwright-core) and test-onnx.R's onnxruntime-node
export NODE_PATH="$root/tools/node_modules"
work=$(mktemp -d /tmp/kernclass-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The tracked files as they are in the working tree (outside a git checkout:
# all files), into $work/pkg.
export_tree() {
  rm -rf "$work/pkg" && mkdir -p "$work/pkg" || return 1
  if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$root" ls-files -z | tar -C "$root" --null -T - --ignore-failed-read -cf - 2>/dev/null |
      tar -x -C "$work/pkg"
  else
    cp -r "$root/." "$work/pkg"
  fi
}

# install_pkg <lib> [Makevars lines...]: R CMD INSTALL $work/pkg into <lib>,
# compiled with the extra make variables given (via R_MAKEVARS_USER, so the
# package's own src/Makevars is untouched). The log is <lib>.log.
install_pkg() {
  local lib=$1; shift
  mkdir -p "$lib"
  printf '%s\n' "$@" >"$lib.mk"
  R_MAKEVARS_USER="$lib.mk" R CMD INSTALL --preclean --no-multiarch -l "$lib" "$work/pkg" \
    >"$lib.log" 2>&1 || { tail -n 30 "$lib.log"; return 1; }
}

# run_r <lib> <script> [R's -d debugger]: an R script of $work/pkg, run from
# there, with kernclass from <lib>, optionally under a debugger (valgrind).
run_r() {
  (cd "$work/pkg" && R_LIBS="$1" KERNCLASS_LIB="$1" R ${3:+-d "$3"} --vanilla --no-echo -f "$2")
}

# keep_digest <title>: $work/digest (what a failed check wrote about itself),
# if any, kept under that title for the summary at the end, where a log's
# tail shows it.
keep_digest() {
  [ -f "$work/digest" ] && { echo "=== $1"; cat "$work/digest"; } >>"$work/digests"
  rm -f "$work/digest"
}

# cran_check_once [VAR=value...]: R CMD check --as-cran on the built tarball
# with those settings added (and $check_flags); passes on "Status: OK", else writes
# $work/digest: every step not "OK" with its lines, and the end of a failed
# test run's output.
cran_check_once() {
  # Offline-safe settings, each about the environment, not the package:
  #   _R_CHECK_CRAN_INCOMING_REMOTE_=false  no look-ups on CRAN (new submission, name clash)
  #   _R_CHECK_SYSTEM_CLOCK_=false          "future file timestamps" needs a time server
  #   R_RD4PDF=times,hyper                  the PDF manual without the inconsolata font
  #                                         (texlive-fonts-extra, 1.4 GB)
  # and CI=true, as CI sets it: without it knitr takes the check for CRAN's
  # and replaces a vignette whose engine package is missing by an empty one.
  (cd "$work" && env _R_CHECK_CRAN_INCOMING_REMOTE_=false _R_CHECK_SYSTEM_CLOCK_=false \
    R_RD4PDF="times,hyper" CI=true "$@" R CMD check --as-cran ${check_flags:-} kernclass_*.tar.gz >check.log 2>&1)
  cat "$work/check.log"
  grep -qx 'Status: OK' "$work/check.log" && return 0
  awk '/^\* /{show = ($0 !~ /\.\.\. (OK|SKIPPED|NONE)$/ && $0 !~ /^\* (using|this is|checking extension type|DONE)/)}
       show' "$work/check.log" >"$work/digest"
  local fail
  for fail in "$work"/kernclass.Rcheck/tests/*.Rout.fail; do
    [ -f "$fail" ] && { echo "--- end of $(basename "$fail")"; tail -n 60 "$fail"; } >>"$work/digest"
  done
  return 1
}

# cran_check [VAR=value...]: R CMD build (once: as-cran and depends-only in
# one run check the same tarball), then cran_check_once. With
# KERNCLASS_CHECK_RERUN=1 (CI) a failed check runs once more: its test run has
# timing-dependent parts (interrupts, child processes with time limits) that
# a loaded machine can break. The first failure's digest is kept either way.
cran_check() {
  if ! ls "$work"/kernclass_*.tar.gz >/dev/null 2>&1; then
    (cd "$work" && R CMD build pkg >build.log 2>&1) || { cat "$work/build.log"; return 1; }
  fi
  cran_check_once "$@" && return 0
  [ "${KERNCLASS_CHECK_RERUN:-}" = 1 ] || return 1
  echo "check $checking: failed, run once more (KERNCLASS_CHECK_RERUN=1)"
  keep_digest "check $checking, first run (then run again)"
  cran_check_once "$@" || return 1
  echo "check $checking: the second run passed; the first run's failure is in the digest at the end"
}

check_as_cran() {
  local check_flags=
  [ "${KERNCLASS_CHECK_NO_TESTS:-}" = 1 ] && check_flags=--no-tests
  cran_check _R_CHECK_FORCE_SUGGESTS_=true
}

# Examples, tests and vignettes see only Depends and Imports (and testthat,
# knitr, rmarkdown): the Suggests, installed or not, are hidden, as on CRAN's
# "noSuggests" machine. Debian's Renviron.site puts /usr/local/lib/R/site-library
# in front of whatever R_LIBS_SITE says, the check's "NULL" included, which
# would leave the Suggests installed there visible: R reads a copy of the
# file without that line.
check_depends_only() {
  grep -v '^[[:space:]]*R_LIBS_SITE=' "$(R RHOME)/etc/Renviron.site" >"$work/Renviron.site" 2>/dev/null
  cran_check R_ENVIRON="$work/Renviron.site" _R_CHECK_DEPENDS_ONLY_=true \
    _R_CHECK_FORCE_SUGGESTS_=false
}

check_warnings() {
  local cc status=0 n
  for cc in gcc clang; do
    install_pkg "$work/lib-$cc" "CC = $cc" "CFLAGS = -O2 -g -Wall -Wextra -pedantic" ||
      { echo "$cc: build failed"; status=1; continue; }
    n=$(grep -c 'warning:' "$work/lib-$cc.log")
    grep -E 'warning:' -A 3 "$work/lib-$cc.log"
    echo "$cc -Wall -Wextra -pedantic: $n warnings"
    [ "$n" -eq 0 ] || status=1
  done
  return $status
}

check_valgrind() {
  install_pkg "$work/lib" "CFLAGS = -O2 -g" || return 1
  # All test files but test-memory (peak memory of fits on 20,000 points: no
  # meaning under valgrind) and test-interrupt (it stops computations of
  # seconds after 0.2 s; under valgrind one step between checks for an
  # interrupt takes many minutes). KERNCLASS_TEST_FILTER="" runs them all.
  export KERNCLASS_TEST_FILTER=${KERNCLASS_TEST_FILTER-'^(?!(memory|interrupt)$)'}
  # Every memory error, and every block definitely lost, is an error (exit
  # status 3), but for the leaks of system graphics libraries in
  # tools/valgrind.supp; "possibly lost" blocks are R's own and are not.
  # --track-origins=yes tells where an uninitialised value came from, at
  # twice the time: add it to look into an error.
  local vg="valgrind -q --error-exitcode=3 --leak-check=full --show-leak-kinds=definite
    --errors-for-leak-kinds=definite --suppressions=$root/tools/valgrind.supp"
  # tools/valgrind.R first: wrong calls, small caches and partial tiles
  # KERNCLASS_VALGRIND: a test comparing with a native child process allows
  # valgrind's last-bit floating-point differences (see test-reproducible.R)
  { run_r "$work/lib" tools/valgrind.R "$vg" &&
      KERNCLASS_VALGRIND=1 run_r "$work/lib" tools/run-tests.R "$vg"; } 2>&1 |
    tee "$work/valgrind.log"
  local status=${PIPESTATUS[0]}
  # With -q valgrind prints only errors; this also catches those of the
  # processes forked by the tests (parallel::mclapply), whose exit status
  # nobody checks.
  if grep -qE '^==[0-9]+==' "$work/valgrind.log"; then
    echo "valgrind: memory errors or leaks (above)"
    [ "$status" -ne 0 ] || status=3
  fi
  return "$status"
}

check_sanitizers() {
  local flags="-fsanitize=address,undefined -fno-omit-frame-pointer" status
  local asan
  asan=$(gcc -print-file-name=libasan.so)
  # R itself is not instrumented: libasan is preloaded, and its leak check,
  # which would report R's own allocations, is off.
  export LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  install_pkg "$work/lib" "CC = gcc" "CFLAGS = -O1 -g $flags" "LDFLAGS = $flags" || return 1
  # The test files of R-only layers (documentation, pictures, other packages'
  # doors, ONNX export, prediction sets, calibration, options, the tables, the
  # property suite over every representation) reach no C path the other files
  # leave out: they run in the plain suite, not again here.
  # KERNCLASS_TEST_FILTER="" runs them all.
  local r_only='docs|plot|autoplot|broom|caret|parsnip|onnx|conformal|calibration|options|approx-table|fitters|r-conventions|tune-metrics|seams'
  KERNCLASS_TEST_FILTER=${KERNCLASS_TEST_FILTER-"^(?!($r_only)\$)"} \
    run_r "$work/lib" tools/run-tests.R 2>&1 | tee "$work/sanitizers.log"
  status=${PIPESTATUS[0]}
  if grep -qE 'runtime error:|ERROR: AddressSanitizer' "$work/sanitizers.log"; then
    echo "sanitizers: reports (above)"
    return 1
  fi
  return "$status"
}

check_gctorture() {
  install_pkg "$work/lib" || return 1
  run_r "$work/lib" tools/gctorture.R
}

check_coverage() {
  # covr builds the package with gcov (-O0 --coverage) and runs tests/.
  (cd "$work/pkg" && Rscript --vanilla tools/coverage.R)
}

check_fuzz() {
  install_pkg "$work/lib" || return 1
  KERNCLASS_DEEP=1 KERNCLASS_TEST_FILTER='^(fuzz-e1071|input-edge)$' \
    run_r "$work/lib" tools/run-tests.R
}

check_site() {
  local shots=${KERNCLASS_SITE_SHOTS:-/tmp/kernclass-site-check}
  # (NODE_PATH, above: KaTeX and pkgdown's scripts for the site,
  # playwright-core for the browser)
  (cd "$work/pkg" && bash tools/site.sh "$work/site") || return 1
  node "$work/pkg/tools/site-check.js" "$work/site" "$shots"
}

run_check() {
  local what=$1 start status
  start=$(date +%s)
  export_tree || { echo "check $what: FAIL (cannot copy the checkout)"; return 1; }
  checking=$what  # for the messages of the check
  ("check_${what//-/_}")  # in a subshell: its exports (LD_PRELOAD, ...) end with it
  status=$?
  local took=$(($(date +%s) - start))
  if [ "$status" -eq 0 ]; then
    echo "check $what: PASS (${took} s)"
  else
    echo "check $what: FAIL (status $status, ${took} s)"
  fi
  keep_digest "check $what"
  return "$status"
}

checks="as-cran depends-only warnings valgrind sanitizers gctorture coverage fuzz site"
todo=""
for what in "$@"; do
  case " $checks all " in
    *" $what "*) todo="$todo ${what/#all/$checks}" ;;
    *) todo="" && break ;;
  esac
done
if [ -z "$todo" ]; then
  echo "usage: bash tools/check.sh {${checks// /|}|all} ..." >&2
  exit 2
fi

if [ "${KERNCLASS_CHECK_NO_SETUP:-}" != 1 ]; then
  bash tools/setup.sh --deps-only --deep >"$work/setup.log" 2>&1 ||
    { cat "$work/setup.log"; echo "check: FAIL (setup, above)"; exit 1; }
fi

failed=""
for c in $todo; do
  run_check "$c" || failed="$failed $c"
done
if [ "$#" -gt 1 ] || [ "$1" = all ]; then
  if [ -n "$failed" ]; then echo "check $*: FAIL ($failed )"; else echo "check $*: PASS"; fi
fi
[ -f "$work/digests" ] && { echo "What failed, in short:"; cat "$work/digests"; }
[ -z "$failed" ]
