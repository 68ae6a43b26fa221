# Pairwise Venn-Abers (venn_abers(multiclass = "pairwise")): for a
# one-vs-one classifier, an IVAP per class pair on that pair's decision
# value over the calibration rows of its two classes, its merged
# probability of the first class taken as r_ij = P(i | i or j), and the
# pairs coupled into class probabilities by the model's own coupling
# (kc_pairwise_coupling(), src/coupling.c), in the place of the Platt
# sigmoids. The IVAP (kc_ivap_fit(), kc_ivap_predict()) and the fold merge
# are R/model-venn-abers.R's.

# The recalibration of venn_abers(multiclass = "pairwise").
kc_va_pairwise_fit <- function(object, x, y, cv) {
  if (!inherits(object, "kernclass_ovo")) {
    kc_abort(sprintf(paste0("`multiclass` \"pairwise\" calibrates the decision value of each ",
                            "class pair, which one-vs-one classifiers (kernel_svm(), ",
                            "kernel_bayes()) give; a %s model scores each class on its own: ",
                            "use `multiclass` \"ovr\"."), class(object)[1L]),
             arg = "multiclass", class = "venn_abers_pairwise")
  }
  held <- kc_heldout_decision(object, x, y, cv)
  lv <- object$levels
  pairs <- kc_ovo_pairs(lv)
  K <- length(unique(held$fold))
  folds <- lapply(split(seq_along(held$fold), factor(held$fold)), function(rows) {
    yk <- held$y[rows]
    kc_va_check_classes(yk, lv, if (held$method == "cv") "cv" else "y", K, held$fold[rows[1L]])
    yk <- as.integer(yk)
    lapply(seq_len(nrow(pairs)), function(m) {
      in_pair <- yk == pairs[m, "first"] | yk == pairs[m, "second"]
      kc_ivap_fit(held$decision[rows[in_pair], m], yk[in_pair] == pairs[m, "first"])
    })
  })
  list(method = "venn_abers", multiclass = "pairwise", folds = unname(folds),
       source = held$method)
}

# The held-out pairwise decision values (n x pairs) and classes that the
# pairwise form calibrates on: of rows x, y; or out of fold, each fold's
# rows scored by the model refitted (its fitter and settings, as CV+) on
# the other folds of `cv`, a kernel_cv() of the model's training rows.
kc_heldout_decision <- function(object, x, y, cv) {
  lv <- object$levels
  rows <- kc_calibration_rows(object, x, y, cv)  # R/model-conformal.R, as the other forms'
  if (!is.null(rows)) {
    d <- as.matrix(kc_predict_rows(object, rows, "decision"))
    fold <- rep(1L, nrow(d))
    method <- "split"
  } else if (!is.null(cv)) {
    y <- kc_calibration_cv(object, cv)$y
    if (isTRUE(cv$loo) || is.null(cv$fold)) {
      kc_abort(paste0("`multiclass` \"pairwise\" refits the model on each fold of `cv`: give a ",
                      "kernel_cv() with a number of folds, not \"loo\"."), arg = "cv")
    }
    kc_check_cv_settings(object, cv)
    def <- kc_fitter_of(object)
    use <- "calibration rows `x`, `y`, or multiclass = \"ovr\""
    args <- kc_refit_args(object, 'venn_abers(multiclass = "pairwise", cv = )',
                          c(kernel = use, weights = use))
    fold <- as.integer(cv$fold)
    d <- matrix(NA_real_, length(y), nrow(kc_ovo_pairs(lv)))
    for (k in unique(fold)) {
      out <- fold == k
      m <- do.call(def$fun, c(list(x = kc_rows(object$x, which(!out)), y = object$y[!out]), args))
      d[out, ] <- as.matrix(kc_predict_rows(m, kc_rows(object$x, which(out)), "decision"))
    }
    method <- "cv"
  } else {
    kc_abort(paste0("`multiclass` \"pairwise\" needs calibration rows `x` and `y`, or `cv` (a ",
                    "kernel_cv() of the model's training rows)."), arg = "x")
  }
  y <- kc_heldout_labels(y, lv)
  ok <- !is.na(y) & !is.na(rowSums(d))
  if (!any(ok)) kc_abort("venn_abers() has no calibration rows with classes and decision values.",
                         arg = "y")
  list(decision = d[ok, , drop = FALSE], y = y[ok], fold = fold[ok], method = method)
}

# The coupled probabilities and the intervals of rows with pairwise
# decision values d (n x pairs, complete rows): list(prob, lower, upper),
# each n x classes. Class c's lower (upper) bound couples the pairs with
# c's pairwise probabilities at their lower (upper) Venn-Abers bounds and
# the other pairs at their merged probabilities. The coupling is not
# monotone in the pairs (a class of small probability can lose a little
# when its pairs rise), so the ends are widened to hold the probability.
kc_va_pairwise_apply <- function(rc, d, levels) {
  n <- nrow(d)
  pairs <- kc_ovo_pairs(levels)
  r <- lo <- hi <- d
  for (m in seq_len(ncol(d))) {
    pk <- lapply(rc$folds, function(f) kc_ivap_predict(f[[m]], d[, m]))
    mg <- kc_va_merge(pk, n)
    r[, m] <- mg$prob
    lo[, m] <- mg$lower
    hi[, m] <- mg$upper
  }
  prob <- kc_pairwise_coupling(r)
  lower <- upper <- prob
  for (c in seq_along(levels)) {
    first <- pairs[, "first"] == c
    second <- pairs[, "second"] == c
    down <- up <- r
    down[, first] <- lo[, first]
    down[, second] <- hi[, second]
    up[, first] <- hi[, first]
    up[, second] <- lo[, second]
    lower[, c] <- pmin(kc_pairwise_coupling(down)[, c], prob[, c])
    upper[, c] <- pmax(kc_pairwise_coupling(up)[, c], prob[, c])
  }
  list(prob = prob, lower = lower, upper = upper)
}
