# latency: how soon a Ctrl-C (SIGINT) stops each long computation (the
# package's test-sigint.R, run from the package root, printing its times).
flags <- list()

run <- function(o) {
  if (!file.exists("tests/testthat/test-sigint.R") || !requireNamespace("testthat", quietly = TRUE)) {
    return(NULL)
  }
  Sys.setenv(KERNCLASS_SHOW_LATENCY = "1")
  out <- utils::capture.output({
    source("tests/testthat/helper-child.R", local = TRUE)
    testthat::test_file("tests/testthat/test-sigint.R", reporter = "silent")
  })
  Sys.unsetenv("KERNCLASS_SHOW_LATENCY")
  at <- grep("^latency", out)
  c("### Interrupt latency (seconds from SIGINT to the R handler; fastest of up to 3)", "",
    "```", out[c(at - 1L, at, at + 1L)], "```", "")
}
