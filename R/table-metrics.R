# The metrics of kernel_cv() and kernel_tune(): the table kc_metrics (what
# each needs from the out-of-fold predictions, which way is better, its
# label) and their formulas, each written once, here.

kc_metric_title <- function(metric) {
  l <- kc_metrics[[metric]]$label
  paste0(toupper(substr(l, 1L, 1L)), substr(l, 2L, nchar(l)))
}

# What each metric needs from the out-of-fold predictions, and whether
# larger is better. Each is written once, here.
kc_metrics <- list(
  accuracy = list(needs = "class", larger = TRUE, label = "accuracy"),
  bal_accuracy = list(needs = "class", larger = TRUE, label = "balanced accuracy"),
  logloss = list(needs = "prob", larger = FALSE, label = "log-loss"),
  brier = list(needs = "prob", larger = FALSE, label = "Brier score"),
  auc = list(needs = "decision", larger = TRUE, label = "AUC")
)

kc_check_metric <- function(metric) {
  if (!is.character(metric) || length(metric) != 1L || !metric %in% names(kc_metrics)) {
    kc_abort(sprintf("`metric` must be one of %s.", kc_enum(names(kc_metrics))), arg = "metric")
  }
  metric
}

# The fitter's arguments `args` for a metric: a fitter judged by its
# probabilities fits its probability model (its registry's `prob_arg`:
# kernel_svm's `probability`), unless the caller set that argument (in args
# or among `given`, the grid's names).
kc_metric_args <- function(metric, fit, args, given = character()) {
  def <- kc_fitter_default(fit)
  if (kc_metrics[[metric]]$needs == "prob" && !is.null(def$prob_arg) &&
      !def$prob_arg %in% c(names(args), given)) {
    args[[def$prob_arg]] <- TRUE
  }
  args
}

# The value of a metric on rows `i` of the out-of-fold predictions o
# (predicted classes, probabilities, decision values) with true classes y.
kc_metric_value <- function(metric, o, y, i = seq_along(y)) {
  if (!length(i)) return(NA_real_)
  yi <- as.integer(y[i])
  switch(metric,
    accuracy = mean(as.integer(o$predicted[i]) == yi),
    bal_accuracy = {
      # the mean over the classes present of the share of their rows predicted right
      hit <- as.integer(o$predicted[i]) == yi
      mean(tapply(hit, yi, mean))
    },
    logloss = {
      p <- o$prob[cbind(i, yi)]
      -mean(log(pmax(p, 1e-15)))
    },
    brier = {
      onehot <- matrix(0, length(i), nlevels(y))
      onehot[cbind(seq_along(i), yi)] <- 1
      mean(rowSums((o$prob[i, , drop = FALSE] - onehot)^2))
    },
    auc = {
      # the first level is the positive class (decision values > 0 for it)
      pos <- yi == 1L
      n1 <- sum(pos)
      n0 <- sum(!pos)
      if (n1 == 0L || n0 == 0L) return(NA_real_)
      r <- rank(o$decision[i])
      (sum(r[pos]) - n1 * (n1 + 1) / 2) / (n1 * n0)
    })
}

kc_check_metric_fit <- function(metric, y) {
  if (metric == "auc" && nlevels(y) != 2L) {
    kc_abort(sprintf("metric = \"auc\" is for two classes; `y` has %d. Use \"accuracy\", \"bal_accuracy\", \"logloss\" or \"brier\".",
                     nlevels(y)), arg = "metric")
  }
}
