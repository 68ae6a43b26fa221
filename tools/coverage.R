# Line coverage of the R and C code by the test suite (covr, which rebuilds
# the package with gcov and runs tests/), for bash tools/check.sh coverage.
# Run from the package root. Prints the figures for R, C and both, the lines
# no test reaches (file: line ranges), and exits with status 1 when the total
# is below KERNCLASS_COVERAGE_MIN percent (default 90).
min <- as.numeric(Sys.getenv("KERNCLASS_COVERAGE_MIN", "90"))
cov <- covr::package_coverage(".", type = "tests", quiet = TRUE)
lines <- covr::tally_coverage(cov, by = "line")
lines$lang <- ifelse(grepl("\\.c$", lines$filename), "C", "R")

percent <- function(l) 100 * mean(l$value > 0)
for (lang in c("R", "C")) {
  l <- lines[lines$lang == lang, ]
  cat(sprintf("coverage %s: %.1f%% of %d lines\n", lang, percent(l), nrow(l)))
}

# Runs of consecutive uncovered lines, as "file: 12-15, 40, ...".
zero <- lines[lines$value == 0, ]
if (nrow(zero)) {
  cat("lines no test reaches:\n")
  for (file in sort(unique(zero$filename))) {
    l <- sort(zero$line[zero$filename == file])
    run <- cumsum(c(1, diff(l) != 1))
    ranges <- vapply(split(l, run), function(r) {
      if (length(r) == 1) format(r) else paste0(r[1], "-", r[length(r)])
    }, "")
    cat(sprintf("  %s: %s\n", file, paste(ranges, collapse = ", ")))
  }
}

total <- percent(lines)
cat(sprintf("coverage total: %.1f%% of %d lines (minimum %g%%)\n", total, nrow(lines), min))
quit(status = if (total < min) 1 else 0)
