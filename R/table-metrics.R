# The metrics of kernel_cv() and kernel_tune(): the table kc_metrics (what
# each needs from the out-of-fold predictions, which way is better, its
# label) and their formulas, each written once, here.

kc_metric_title <- function(metric) {
  l <- kc_metrics[[metric]]$label
  paste0(toupper(substr(l, 1L, 1L)), substr(l, 2L, nchar(l)))
}

# What each metric needs from the out-of-fold predictions, whether larger
# is better, its label, and `aliases`: yardstick's names of the same
# quantity, which `metric =` takes too (the results name the metric by its
# kernclass name). Each is written once, here.
kc_metric_row <- function(needs, larger, label, aliases = character()) {
  list(needs = needs, larger = larger, label = label, aliases = aliases)
}

kc_metrics <- list(
  accuracy = kc_metric_row("class", TRUE, "accuracy"),
  bal_accuracy = kc_metric_row("class", TRUE, "balanced accuracy"),
  kappa = kc_metric_row("class", TRUE, "Cohen's kappa", aliases = "kap"),
  logloss = kc_metric_row("prob", FALSE, "log-loss", aliases = "mn_log_loss"),
  brier = kc_metric_row("prob", FALSE, "Brier score"),
  auc = kc_metric_row("decision", TRUE, "AUC", aliases = "roc_auc")
)

# Other packages' metric names whose quantity differs from kernclass's, with
# what to use instead.
kc_foreign_metrics <- c(
  brier_class = paste0("yardstick's brier_class is half of kernclass's \"brier\" (it divides the ",
                       "sum over the classes by 2): use metric = \"brier\" and halve it"),
  Kappa = "caret's \"Kappa\" is metric = \"kappa\"",
  Accuracy = "caret's \"Accuracy\" is metric = \"accuracy\"",
  ROC = "caret's \"ROC\" (two classes) is metric = \"auc\"")

# The kernclass name of `metric`: its own, or a yardstick alias.
kc_check_metric <- function(metric) {
  if (is.character(metric) && length(metric) == 1L && !is.na(metric)) {
    if (metric %in% names(kc_metrics)) return(metric)
    for (nm in names(kc_metrics)) if (metric %in% kc_metrics[[nm]]$aliases) return(nm)
    if (metric %in% names(kc_foreign_metrics)) {
      kc_abort(sprintf("metric = \"%s\" is not kernclass's: %s.", metric,
                       kc_foreign_metrics[[metric]]), arg = "metric", class = "e1071_argument")
    }
  }
  kc_abort(sprintf("`metric` must be one of %s (or yardstick's %s).", kc_enum(names(kc_metrics), 10),
                   kc_enum(unlist(lapply(kc_metrics, `[[`, "aliases")), 10)), arg = "metric")
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
    kappa = {
      # Cohen's: observed agreement against that of independent margins
      k <- nlevels(y)
      pi <- as.integer(o$predicted[i])
      expected <- sum(tabulate(yi, k) * tabulate(pi, k)) / length(i)^2
      if (expected >= 1) return(NA_real_)  # one class in truth and prediction alike
      (mean(pi == yi) - expected) / (1 - expected)
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
    kc_abort(sprintf("metric = \"auc\" is for two classes; `y` has %d. Use %s.", nlevels(y),
                     kc_enum(setdiff(names(kc_metrics), "auc"), 10)), arg = "metric")
  }
}
