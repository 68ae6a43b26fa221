args <- commandArgs(TRUE)
lib <- args[1]; reps <- as.integer(args[2]); which <- if (length(args) > 2) strsplit(args[3], ",")[[1]] else c("spam", "s20", "s100")
suppressMessages(library(kernclass, lib.loc = lib))
make_data <- function(n, d, seed) { set.seed(seed); x <- matrix(rnorm(n * d), n, d)
  y <- factor(ifelse(x[, 1] + x[, 2]^2 - 1 + rnorm(n, sd = 0.5) > 0, "a", "b")); list(x = x, y = y) }
s20 <- make_data(5000, 20, 20020); s100 <- make_data(5000, 100, 20100)
data(spam, package = "kernlab")
tasks <- list(spam = function() kernel_svm(type ~ ., data = spam)$objective,
  s20 = function() kernel_svm(s20$x, s20$y, gamma = 1/20, scale = FALSE)$objective,
  s100 = function() kernel_svm(s100$x, s100$y, gamma = 1/100, scale = FALSE)$objective)
for (t in which) {
  tm <- matrix(NA, reps, 2); v <- list()
  for (r in seq_len(reps)) for (k in 1:2) {
    options(kernclass.threads = k); invisible(gc())
    tm[r, k] <- system.time(v[[k]] <- tasks[[t]]())[["elapsed"]]
  }
  cat(sprintf("%-5s 1t %.3f  2t %.3f  ratio(median of per-pair) %.2f  same %s\n", t,
    median(tm[, 1]), median(tm[, 2]), median(tm[, 2] / tm[, 1]), identical(v[[1]], v[[2]])))
}
