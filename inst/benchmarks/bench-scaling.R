# scaling: 1, 2, 4, ... up to all cores, with speed-up and efficiency.
flags <- list()

run <- function(o) {
  cores <- parallel::detectCores()
  counts <- sort(unique(c(2^(0:floor(log2(cores))), cores)))
  n50 <- size(50000, 10000, 1000)
  sv <- make_data(n50, 20, 50020)
  s100 <- make_data(size(20000, 5000, 500), 100, 20100)
  sums <- make_data(n50, 100, 4); sums_te <- make_data(n50, 100, 5)
  tasks <- list(
    sums = list(name = sprintf("kernel sums: kernel_means fit + predict, %d x %d, d=100", n50, n50),
                f = function() predict(kernel_means(sums$x, sums$y, gamma = 0.01, scale = FALSE),
                                       sums_te$x, type = "decision")),
    svm50 = list(name = sprintf("kernel_svm n=%d, d=20 (default cache)", n50),
                 f = function() kernel_svm(sv$x, sv$y, gamma = 1 / 20, scale = FALSE)$objective),
    svm100 = list(name = sprintf("kernel_svm n=%d, d=100", nrow(s100$x)),
                  f = function() kernel_svm(s100$x, s100$y, gamma = 1 / 100, scale = FALSE)$objective))
  rows_s <- list()
  for (task in tasks) {
    first <- NULL
    base <- NA
    for (k in counts) {
      # the faster of two runs: a machine's other programs come and go
      secs <- Inf
      for (rep in 1:2) {
        invisible(gc())
        secs <- min(secs, system.time(value <- with_threads(k, task$f)())[["elapsed"]])
      }
      if (is.null(first)) { first <- value; base <- secs }
      cat(sprintf("  %-58s %3d threads: %.2f s\n", task$name, k, secs))
      rows_s[[length(rows_s) + 1L]] <- data.frame(
        task = task$name, threads = k, seconds = sprintf("%.2f", secs),
        "speed-up" = sprintf("%.2fx", base / secs), efficiency = sprintf("%.0f%%", 100 * base / secs / k),
        "same result as 1 thread" = identical(value, first), check.names = FALSE)
    }
  }
  c(sprintf("### Thread scaling (%d cores; the faster of two runs)", cores), "",
    knitr::kable(do.call(rbind, rows_s), format = "pipe", align = "lrrrrl"), "")
}
