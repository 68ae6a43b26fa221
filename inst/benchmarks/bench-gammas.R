# gammas: kernel_tune() of kernel_means, kernel_parzen and kernel_bayes over
# 10 gammas, 5-fold: the gammas sharing their kernel sums on each fold
# (kernel_tune's way) against each grid row alone (the registry without the
# gamma path, as before it), the same folds, one thread.
flags <- list(
  bench_flag("--gammas-n", "int", full = 5000, quick = 2000, smoke = 200, help = "rows"),
  bench_flag("--gammas-reps", "int", full = 3, smoke = 1, help = "runs (their median)"))

run <- function(o) {
  ng <- o$gammas_n[1L]
  reps <- o$gammas_reps[1L]
  gammas <- data.frame(gamma = 2^seq(-9, 0, length.out = 10))
  shared_rows <- list()
  registry <- get("kc_fitters", envir = asNamespace("kernclass"))
  alone <- lapply(registry, function(r) {
    if (identical(r$path, "gamma")) r$path <- NULL
    r
  })
  with_registry <- function(reg, f) {
    assignInNamespace("kc_fitters", reg, "kernclass")
    on.exit(assignInNamespace("kc_fitters", registry, "kernclass"))
    f()
  }
  for (d in c(20, 100)) {
    dat <- make_data(ng, d, 98)
    for (f in c("kernel_means", "kernel_parzen", "kernel_bayes")) {
      fun <- match.fun(f)
      run <- function() {
        set.seed(5)
        kernel_tune(fun, dat$x, dat$y, grid = gammas, folds = 5, search = "exhaustive")
      }
      one <- function(reg) with_threads(1L, function() with_registry(reg, run))
      t_shared <- median_seconds(one(registry), reps)
      t_alone <- median_seconds(one(alone), reps)
      same <- identical(one(registry)()$results, one(alone)()$results)
      cat(sprintf("%-48s shared %.2f s, alone %.2f s\n",
                  sprintf("%s, 10 gammas, 5-fold, n=%d d=%d", f, ng, d), t_shared, t_alone))
      shared_rows[[length(shared_rows) + 1L]] <- data.frame(
        task = sprintf("kernel_tune(%s), 10 gammas, 5-fold, n=%d, d=%d", f, ng, d),
        "gammas shared" = sprintf("%.2f", t_shared), "each row alone" = sprintf("%.2f", t_alone),
        speed_up = sprintf("%.2fx", t_alone / t_shared),
        identical = if (same) "yes" else "NO", check.names = FALSE)
    }
  }
  c(
    "### Kernel-sum classifiers over gamma (kernel_tune, 10 gammas, 5-fold, one thread)", "",
    knitr::kable(do.call(rbind, shared_rows), format = "pipe"), "",
    paste("scale = TRUE, gamma 2^(-9, ..., 0), the same folds; gammas shared: the grid rows",
          "that differ only in gamma fitted together on each fold, every kernel sum computed for",
          "all the gammas from one pass of inner products or distances (and kernel_bayes's",
          "covariances and whitened points once); each row alone: the same search with that",
          "sharing switched off; identical: the results tables are identical();",
          sprintf("median of %d runs.", reps)), "")
}
