# The benchmark scripts as installed (inst/benchmarks): each prints its
# flags with --help and runs at --smoke sizes (seconds) against this
# session's kernclass, so that a change to the package or to common.R that
# breaks a script shows here and not when someone next measures. Their
# numbers are not checked (a smoke run times nothing).

bench_dir <- system.file("benchmarks", package = "kernclass")
kc_lib <- dirname(find.package("kernclass"))

# Rscript on a benchmark script: its output lines, with the exit status as
# attribute "status" (0 when it ran to its end).
run_bench <- function(script, args = character()) {
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"),
                                  c("--vanilla", shQuote(file.path(bench_dir, script)), args),
                                  stdout = TRUE, stderr = TRUE,
                                  env = paste0("KERNCLASS_ISA=", kernclass:::kc_engine())))
  status <- attr(out, "status")
  structure(as.character(out), status = if (is.null(status)) 0L else status)
}

scripts <- list(
  "venn-abers.R" = list(flags = c("--reps", "--data", "--figure", "--figure-data"),
                        shows = "\\| iris \\(150 x 4, 3 classes\\) \\| cvap_pair \\|"),
  "conformal.R" = list(flags = c("--only", "--reps", "--coverage-data", "--diagram-file"),
                       shows = "## Reliability diagram"),
  "approx-baseline.R" = list(flags = c("--n", "--rules", "--fits", "--approx"),
                             shows = "exact, same time"),
  "contention-ab.R" = list(flags = c("--lib", "--rounds", "--idle"), args = "--idle",
                           shows = "^B \\(.*\\) s100 .* same TRUE$", needs = "kernlab"),
  "race-ab.R" = list(flags = c("--lib", "--rounds", "--data", "--threads"),
                     shows = "^results identical: TRUE"))

test_that("every benchmark script prints its flags with --help", {
  for (s in c("run.R", names(scripts))) {
    out <- run_bench(s, "--help")
    expect_identical(attr(out, "status"), 0L, label = s)
    expect_match(out[1], sprintf("^Usage: Rscript inst/benchmarks/%s", s), label = s)
    for (f in c("--smoke", "--lib", scripts[[s]]$flags)) {
      expect_true(any(grepl(paste0("^  ", f, " "), out)), label = paste(s, f))
    }
  }
  out <- run_bench("venn-abers.R", c("--reps", "x"))
  expect_false(identical(attr(out, "status"), 0L))
  expect_match(paste(out, collapse = "\n"), "--reps takes numbers")
})

for (s in names(scripts)) {
  test_that(sprintf("%s runs at --smoke sizes", s), {
    if (!is.null(scripts[[s]]$needs)) skip_if_not_installed(scripts[[s]]$needs)
    lib <- if (grepl("-ab\\.R$", s)) paste(kc_lib, kc_lib, sep = ",") else kc_lib
    out <- run_bench(s, c("--smoke", "--lib", lib, scripts[[s]]$args))
    expect_identical(attr(out, "status"), 0L, label = paste(out, collapse = "\n"))
    expect_true(any(grepl(scripts[[s]]$shows, out)), label = paste(s, "shows its table"))
  })
}
