# Venn-Abers probabilities (Vovk and Petej 2014; Vovk, Petej and Fedorova
# 2015): venn_abers() keeps, beside the model, the inductive Venn-Abers
# predictor (IVAP) of each class's probability against the rest, fitted on
# held-out rows (or one per fold of a cross-validation, CVAP), as the
# model's `recalibration` (method "venn_abers"), so that kc_prob()
# (R/model-methods.R) and with it predict(type = "prob"), the class rule
# and conformal() go through it; predict(type = "interval") gives the
# [p0, p1] intervals. multiclass = "pairwise" calibrates a one-vs-one
# model's pairs instead (R/model-venn-abers-pairwise.R).
#
# The IVAP of one class: calibration scores s_1..s_n with labels l_i in
# {0, 1}; for a new score s, p_y is the value at s of the isotonic
# regression of the labels on the scores with (s, y) added, y = 0, 1. The
# fit at s depends only on where s falls among the k distinct calibration
# scores u_1 < ... < u_k: equal to some u_j (it joins that tied group) or in
# one of the k + 1 gaps. So the 2 (2k + 1) values are computed once, at fit
# time, and a new row's are a look-up (findInterval).
#
# Each value is a slope of the cumulative sum diagram: with W_i, C_i the
# numbers of calibration rows and of label-1 rows among those with the i
# smallest distinct scores (P_i = (W_i, C_i), P_0 = (0, 0)), the isotonic
# fit at the added point is the max-min formula
#   max_{a <= aL} min_{b >= bR} (C_b - C_a + y) / (W_b - W_a + 1)
# where s = u_j gives aL = j - 1, bR = j and s in the gap below u_j gives
# aL = bR = j - 1. That is the slope of the lower common tangent (the
# bridge) of the point sets {P_a - (1, y) : a <= aL} and {P_b : b >= bR},
# which lie on either side of a vertical line. The bridge is found by the
# two-sided walk of the divide-and-conquer convex hull merge, on the lower
# hull of each prefix (each point's predecessor on it, one stack pass left
# to right) and of each suffix (its successor, one pass right to left):
# from P_aL and P_bR, the right end moves along its hull while the slope
# falls and the left end along its hull while it rises, until neither
# moves. Slopes are compared by cross-multiplication of whole numbers, so
# exactly. All queries walk side by side as vectors; a walk takes as many
# steps as hull vertices it passes, at most O(n^(2/3)) for points on the
# integer grid, so the fit is O(n log n) for the sort and about linear
# after it.

#' Venn-Abers probabilities for a kernclass classifier
#'
#' `venn_abers()` calibrates a classifier's probabilities by the inductive
#' (IVAP) or cross (CVAP) Venn-Abers predictor of Vovk, Petej and Fedorova
#' (2015), so that `predict(type = "prob")` gives the merged Venn-Abers
#' probabilities and `predict(type = "interval")` the interval
#' \eqn{[p_0, p_1]}{[p0, p1]} of each class. For any classifier and
#' representation that gives probabilities.
#'
#' @section The predictor: The score of class \eqn{c} is the model's
#'   probability of \eqn{c} (for [kernel_svm()] its pairwise Platt sigmoids
#'   coupled, the probability of `predict(type = "prob")` before any
#'   recalibration; the decision values are not used, so that the
#'   out-of-fold probabilities of [kernel_cv()] serve as scores too). For a
#'   new row with score \eqn{s}, \eqn{p_0} (\eqn{p_1}) is the value at
#'   \eqn{s} of the isotonic regression of the class indicator on the scores
#'   of the calibration rows with \eqn{(s, 0)} (\eqn{(s, 1)}) added; tied
#'   scores share one fitted value. Always \eqn{0 \le p_0 \le p_1 \le
#'   1}{0 <= p0 <= p1 <= 1}, and one of the two is a calibrated probability
#'   (perfectly so in the sense of Vovk and Petej, for calibration rows
#'   exchangeable with the new ones). The merged probability is \eqn{p =
#'   p_1 / (1 - p_0 + p_1)}{p = p1 / (1 - p0 + p1)} (it minimises the worst
#'   log-loss over the two), which lies in \eqn{[p_0, p_1]}{[p0, p1]}.
#'   The values are computed once per calibration set for every place a new
#'   score can fall (\eqn{O(n \log n)}{O(n log n)}, see the source), so
#'   that predicting is a look-up.
#'
#' @section Classes: With two classes the first level's predictor gives
#'   both probabilities (\eqn{1 - p} for the second, whose interval is
#'   \eqn{[1 - p_1, 1 - p_0]}{[1 - p1, 1 - p0]}, which is what the second
#'   level's own predictor gives). With more, one against the rest: a
#'   predictor per class, the merged probabilities divided by their sum
#'   (the intervals are each class's own and are not normalised); this is
#'   `multiclass = "ovr"`, the default.
#'
#'   `multiclass = "pairwise"`, for one-vs-one classifiers ([kernel_svm()],
#'   [kernel_bayes()]; the others score each class on their own and give a
#'   classed error naming `multiclass`): a predictor per class pair
#'   \eqn{(i, j)} on that pair's decision value (not the Platt
#'   probabilities, so `probability = TRUE` is not needed), on the
#'   calibration rows of classes \eqn{i} and \eqn{j} only, its merged
#'   \eqn{p_1 / (1 - p_0 + p_1)}{p1 / (1 - p0 + p1)} (the log-loss merge,
#'   as above; the geometric-mean merge across folds for `cv`) standing for
#'   \eqn{P(i \mid i \textrm{ or } j)}{P(i | i or j)} in the pairwise
#'   coupling of Wu, Lin and Weng (2004) that [kernel_svm()] applies to its
#'   Platt sigmoids (the same code, so the probabilities sum to 1 and lie in
#'   \eqn{[10^{-7}, 1 - 10^{-7}]}{[1e-7, 1 - 1e-7]}). Its interval of class
#'   \eqn{c} couples the pairs of \eqn{c} at the ends of their Venn-Abers
#'   intervals that are least (lower bound) and most (upper bound)
#'   favourable to \eqn{c}, the other pairs at their merged values, widened
#'   where needed to hold the probability (the coupling is not monotone in
#'   the pairs: a class of small probability can lose a little when its
#'   pairs rise): a range of what the pairwise predictors allow, not a
#'   Venn-Abers interval and without its guarantee. With `cv`, the model is refitted on each
#'   fold's other rows for the out-of-fold decision values (`kernel_cv()`
#'   keeps only probabilities), so any `metric` will do but not
#'   `folds = "loo"`. A model calibrated this way scores [conformal()] only
#'   on calibration rows `x`, `y` (out-of-fold probabilities carry no
#'   decision values).
#'
#'   Why one-vs-rest is the default: on the data sets of
#'   `inst/benchmarks/venn-abers.R` (20 stratified splits 50/25/25,
#'   [kernel_svm()]), the pairwise form had the higher test log-loss and
#'   Brier score on every data set with more than two classes (IVAP
#'   log-loss 0.39 against 0.29 on iris, 1.06 against 0.97 on Glass, 0.55
#'   against 0.53 on Vehicle; CVAP alike). A pair calibrated on a few rows
#'   keeps its merged probability about \eqn{1/(m + 1)}{1/(m + 1)} from 0
#'   and 1 (\eqn{m} the rows of the pair's extreme run of one class), and
#'   the coupling compounds that over the \eqn{k - 1} pairs of a class
#'   (two pairs at 0.93 couple to 0.87 on three classes). With two classes
#'   the two IVAP forms agree, as the Platt sigmoid is increasing in the
#'   decision value.
#'
#' @section Where the calibration rows come from:
#'   * split (IVAP): `x` and `y`, rows not used to fit the model;
#'   * cross (CVAP): `cv`, a [kernel_cv()] (or [kernel_tune()]) result of the
#'     same fitter, settings and data as the model, run with `metric =
#'     "logloss"` or `"brier"` (which keep the out-of-fold probabilities):
#'     an IVAP per fold on that fold's out-of-fold probabilities, merged as
#'     in the paper, \eqn{p = G(p_1) / (G(1 - p_0) + G(p_1))}{p = GM(p1) /
#'     (GM(1 - p0) + GM(p1))} with \eqn{G}{GM} the geometric mean over the
#'     folds; the interval is the span of the folds' intervals,
#'     \eqn{[\min_k p_0^k, \max_k p_1^k]}{[min_k p0_k, max_k p1_k]}, which
#'     holds \eqn{p}. `kernel_cv()` keeps no fold models, so a new row is
#'     scored by the model fitted on all rows in every fold's predictor
#'     (the paper scores it with each fold's model), as [conformal()]'s
#'     cross-conformal form does; a leave-one-out `cv` is one IVAP on all
#'     its rows;
#'   * leave-one-out: for [kernel_means()] and [kernel_parzen()] as in
#'     [conformal()], one IVAP on the exact leave-one-out probabilities.
#'
#'   `venn_abers()` replaces a [recalibrate()] map (both set the model's
#'   `recalibration`); `recalibrate(fit, method = NULL)` removes either. A
#'   [conformal()] calibration made afterwards scores through the
#'   Venn-Abers probabilities.
#'
#' @inheritParams conformal
#' @param object A fitted kernclass model with probabilities (with
#'   `multiclass = "pairwise"`, a one-vs-one model, probabilities or not).
#' @param multiclass With more than two classes (and with two, where it
#'   changes the score calibrated): `"ovr"` (the default), a predictor per
#'   class on the model's probabilities, one class against the rest; or
#'   `"pairwise"`, a predictor per class pair on its decision value, coupled
#'   as [kernel_svm()] couples its Platt sigmoids. See "Classes".
#' @return The model with a `recalibration` component of method
#'   `"venn_abers"`: per fold (one for IVAP) and class, the distinct
#'   calibration scores and the \eqn{p_0, p_1}{p0, p1} of a new score equal
#'   to each or between two. `predict(type = "prob")` then gives the
#'   merged probabilities, the class of `rule = "prob"` (the default) their
#'   largest, and `predict(type = "interval")` an array of dimension
#'   `c(rows, classes, 2)` whose last dimension is `c("lower", "upper")`.
#' @seealso [recalibrate()] for isotonic and Platt maps, [calibration_curve()],
#'   [conformal()].
#' @references Vovk and Petej (2014), Venn-Abers predictors, UAI. Vovk,
#'   Petej and Fedorova (2015), Large-scale probabilistic predictors with and
#'   without guarantees of validity, NeurIPS. Wu, Lin and Weng (2004),
#'   Probability estimates for multi-class classification by pairwise
#'   coupling, JMLR 5.
#' @export
#' @examples
#' set.seed(1)
#' i <- sample(150)
#' fit <- kernel_svm(Species ~ ., data = iris[i[1:75], ], probability = TRUE)
#' va <- venn_abers(fit, iris[i[76:115], ], iris$Species[i[76:115]])
#' head(predict(va, iris[i[116:150], ], type = "prob"))
#' predict(va, iris[i[116:120], ], type = "interval")
#'
#' # cross Venn-Abers from a cross-validation's out-of-fold probabilities
#' cv <- kernel_cv(kernel_svm, Species ~ ., data = iris, folds = 5, metric = "logloss")
#' va2 <- venn_abers(kernel_svm(Species ~ ., data = iris, probability = TRUE), cv = cv)
#' va2
#'
#' # a predictor per class pair on the SVM's decision values, coupled
#' va3 <- venn_abers(fit, iris[i[76:115], ], iris$Species[i[76:115]], multiclass = "pairwise")
#' head(predict(va3, iris[i[116:150], ], type = "prob"))
venn_abers <- function(object, x = NULL, y = NULL, cv = NULL, multiclass = c("ovr", "pairwise")) {
  if (!inherits(object, "kernclass") || is.null(object$y)) {
    kc_abort("`object` must be a fitted kernclass classifier with classes.", arg = "object")
  }
  multiclass <- kc_match_arg(multiclass, arg = "multiclass")
  object$recalibration <- NULL
  if (multiclass == "pairwise") {
    object$recalibration <- kc_va_pairwise_fit(object, x, y, cv)  # R/model-venn-abers-pairwise.R
    return(kc_drop_conformal(object, "venn_abers()"))
  }
  held <- kc_heldout_prob(object, x, y, cv, for_what = "venn_abers()")
  fold <- rep(1L, length(held$y))
  if (held$method == "cv") {
    pr <- kc_calibration_cv(object, cv)
    if (!isTRUE(cv$loo)) {
      # kc_heldout_prob() keeps the rows with probabilities
      fold <- as.integer(cv$fold)[!is.na(rowSums(pr$prob))]
    }
  }
  lv <- object$levels
  K <- length(unique(fold))
  folds <- lapply(split(seq_along(fold), factor(fold)), function(rows) {
    yk <- held$y[rows]
    kc_va_check_classes(yk, lv, if (held$method == "cv") "cv" else "y", K, fold[rows[1L]])
    lapply(seq_len(if (length(lv) == 2L) 1L else length(lv)), function(c) {
      kc_ivap_fit(held$prob[rows, c], as.integer(yk) == c)
    })
  })
  object$recalibration <- list(method = "venn_abers", multiclass = "ovr", folds = unname(folds),
                               source = held$method)
  kc_drop_conformal(object, "venn_abers()")
}

# Every class must have calibration rows (in every fold: K folds, this
# one `id`), or its predictor would have no labels of one kind.
kc_va_check_classes <- function(yk, lv, arg, K, id) {
  missing <- setdiff(lv, as.character(yk))
  if (!length(missing)) return(invisible(TRUE))
  kc_abort(sprintf(paste0("venn_abers() needs calibration rows of every class%s, but `%s` ",
                          "has none of %s%s. Give calibration rows of every class%s."),
                   if (K > 1L) " in every fold" else "", arg, kc_enum(missing),
                   if (K > 1L) sprintf(" in fold %d", id) else "",
                   if (K > 1L) ", or fewer folds" else ""),
           arg = arg, class = "venn_abers_classes")
}

# The IVAP of one class on calibration scores s (finite numbers) and
# labels l (logical): the distinct scores u and the p0, p1 of a new score
# equal to u[j] (tie0, tie1, length k) or in the gap below u[j] (gap0, gap1,
# length k + 1, the last above u[k]).
kc_ivap_fit <- function(s, l) {
  u <- sort(unique(s))
  k <- length(u)
  g <- match(s, u)
  W <- c(0, cumsum(tabulate(g, k)))
  C <- c(0, cumsum(tabulate(g[l], k)))
  hull <- kc_cumsum_hulls(W, C)
  j <- seq_len(k)
  # queries: (aL, bR) as 0-based indices of P, for y = 0 and y = 1
  aL <- c(j - 1, c(j, k + 1L) - 1)
  bR <- c(j, c(j, k + 1L) - 1)
  p0 <- kc_bridge_slope(W, C, hull, aL, bR, 0)
  p1 <- kc_bridge_slope(W, C, hull, aL, bR, 1)
  list(u = u, tie0 = p0[j], tie1 = p1[j], gap0 = p0[-j], gap1 = p1[-j])
}

# The lower convex hulls of the prefixes and suffixes of the points
# (W[i], C[i]), i = 0..k (R index i + 1), W increasing: prev[i] is the
# vertex before i on the hull of points 0..i, nxt[i] the vertex after i on
# the hull of points i..k (NA at the ends); both as R indices.
kc_cumsum_hulls <- function(W, C) {
  m <- length(W)
  # is the turn o -> a -> b not to the left (a on or above the chord)?
  not_left <- function(o, a, b) {
    (W[a] - W[o]) * (C[b] - C[o]) - (C[a] - C[o]) * (W[b] - W[o]) <= 0
  }
  prev <- rep(NA_integer_, m)
  st <- integer(m)
  top <- 0L
  for (i in seq_len(m)) {
    while (top >= 2L && not_left(st[top - 1L], st[top], i)) top <- top - 1L
    if (top >= 1L) prev[i] <- st[top]
    top <- top + 1L
    st[top] <- i
  }
  nxt <- rep(NA_integer_, m)
  top <- 0L
  for (i in rev(seq_len(m))) {
    # from the right, the lower hull turns right: b -> a -> i
    while (top >= 2L && not_left(i, st[top], st[top - 1L])) top <- top - 1L
    if (top >= 1L) nxt[i] <- st[top]
    top <- top + 1L
    st[top] <- i
  }
  list(prev = prev, nxt = nxt)
}

# The slopes of the bridges between {P_a - (1, y) : a <= aL} and
# {P_b : b >= bR} (aL, bR 0-based vectors of queries), each
# (C_b - C_a + y) / (W_b - W_a + 1) at the tangent pair (a, b).
kc_bridge_slope <- function(W, C, hull, aL, bR, y) {
  a <- aL + 1L
  b <- bR + 1L
  # slope(a, b) < slope(a2, b2), by cross-multiplication (denominators > 0)
  less <- function(a, b, a2, b2) {
    (C[b] - C[a] + y) * (W[b2] - W[a2] + 1) < (C[b2] - C[a2] + y) * (W[b] - W[a] + 1)
  }
  active <- seq_along(a)
  while (length(active)) {
    moved <- logical(length(active))
    bb <- hull$nxt[b[active]]
    go <- !is.na(bb)
    go[go] <- less(a[active][go], bb[go], a[active][go], b[active][go])
    b[active][go] <- bb[go]
    moved <- moved | go
    aa <- hull$prev[a[active]]
    go <- !is.na(aa)
    go[go] <- less(a[active][go], b[active][go], aa[go], b[active][go])
    a[active][go] <- aa[go]
    moved <- moved | go
    active <- active[moved]
  }
  (C[b] - C[a] + y) / (W[b] - W[a] + 1)
}

# p0 and p1 of new scores s (no NA) from one class's IVAP fit.
kc_ivap_predict <- function(fit, s) {
  pos <- findInterval(s, fit$u)
  tie <- pos > 0L & fit$u[pmax(pos, 1L)] == s
  p0 <- fit$gap0[pos + 1L]
  p1 <- fit$gap1[pos + 1L]
  p0[tie] <- fit$tie0[pos[tie]]
  p1[tie] <- fit$tie1[pos[tie]]
  list(p0 = p0, p1 = p1)
}

# The folds' IVAP values pk (a list of kc_ivap_predict() results for n
# rows) merged as in the paper (for one fold p1 / (1 - p0 + p1); p1 > 0 and
# p0 < 1), and the span of their intervals: list(prob, lower, upper).
kc_va_merge <- function(pk, n) {
  p0 <- vapply(pk, `[[`, numeric(n), "p0")
  p1 <- vapply(pk, `[[`, numeric(n), "p1")
  dim(p0) <- dim(p1) <- c(n, length(pk))
  g1 <- exp(rowMeans(log(p1)))
  g0 <- exp(rowMeans(log1p(-p0)))
  list(prob = g1 / (g0 + g1), lower = apply(p0, 1L, min), upper = apply(p1, 1L, max))
}

# The merged probabilities and intervals of rows with model probabilities
# p (n x G, complete rows): list(prob = n x G, lower = n x G, upper = n x G).
kc_venn_abers_apply <- function(rc, p) {
  G <- ncol(p)
  classes <- if (G == 2L) 1L else seq_len(G)
  lower <- upper <- prob <- p
  for (c in classes) {
    mg <- kc_va_merge(lapply(rc$folds, function(f) kc_ivap_predict(f[[c]], p[, c])), nrow(p))
    prob[, c] <- mg$prob
    lower[, c] <- mg$lower
    upper[, c] <- mg$upper
  }
  if (G == 2L) {
    prob[, 2L] <- 1 - prob[, 1L]
    lower[, 2L] <- 1 - upper[, 1L]
    upper[, 2L] <- 1 - lower[, 1L]
  } else {
    prob <- prob / rowSums(prob)
  }
  list(prob = prob, lower = lower, upper = upper)
}

# kc_recalibrate_prob()'s Venn-Abers case: the merged probabilities of the
# model's probabilities p (rows with NA stay NA). The pairwise form reads
# decision values, not probabilities (kc_prob() gives it them).
kc_venn_abers_prob <- function(rc, p) {
  if (identical(rc$multiclass, "pairwise")) {
    kc_abort(paste0("`object` is calibrated by venn_abers(multiclass = \"pairwise\"), whose ",
                    "probabilities come from the model's decision values, which out-of-fold ",
                    "probabilities (conformal() with `cv` or method = \"cv+\", the leave-one-out) ",
                    "do not carry: calibrate conformal() on rows `x`, `y`, or use ",
                    "venn_abers(multiclass = \"ovr\")."), arg = "object",
             class = "venn_abers_pairwise")
  }
  ok <- !is.na(rowSums(p))
  out <- p
  out[ok, ] <- kc_venn_abers_apply(rc, p[ok, , drop = FALSE])$prob
  out
}

# What the Venn-Abers recalibration of a model reads from its scores: the
# pairwise decision values (as a matrix) or the model's probabilities.
kc_va_input <- function(object, scores) {
  if (identical(object$recalibration$multiclass, "pairwise")) {
    as.matrix(kc_decision(object, scores))
  } else {
    kc_posterior(object, scores)
  }
}

# list(prob, lower, upper) of the complete rows of v, kc_va_input()'s.
kc_va_apply <- function(object, v) {
  rc <- object$recalibration
  if (identical(rc$multiclass, "pairwise")) {
    kc_va_pairwise_apply(rc, v, object$levels)  # R/model-venn-abers-pairwise.R
  } else {
    kc_venn_abers_apply(rc, v)
  }
}

# kc_prob() of a model calibrated by venn_abers(multiclass = "pairwise"):
# the coupled probabilities (rows with NA decision values stay NA).
kc_va_pairwise_prob <- function(object, scores) {
  d <- kc_va_input(object, scores)
  ok <- !is.na(rowSums(d))
  out <- matrix(NA_real_, nrow(d), length(object$levels),
                dimnames = list(rownames(d), object$levels))
  out[ok, ] <- kc_va_apply(object, d[ok, , drop = FALSE])$prob
  out
}

# predict(type = "interval"): the rows x classes x c("lower", "upper")
# array of the Venn-Abers intervals of rows with scores `scores`, spread
# over all rows (ok: the rows that have them; names: row names).
kc_venn_abers_interval <- function(object, scores, ok, names) {
  rc <- object$recalibration
  if (is.null(rc) || !identical(rc$method, "venn_abers")) {
    kc_abort(paste0("`type` \"interval\" needs a model calibrated by venn_abers(), e.g. ",
                    "venn_abers(fit, x_cal, y_cal)."), arg = "type",
             class = "interval_unavailable")
  }
  v <- kc_va_input(object, scores)
  out <- array(NA_real_, c(length(ok), length(object$levels), 2L),
               dimnames = list(names, object$levels, c("lower", "upper")))
  good <- !is.na(rowSums(v))
  r <- kc_va_apply(object, v[good, , drop = FALSE])
  rows <- which(ok)[good]
  out[rows, , 1L] <- r$lower
  out[rows, , 2L] <- r$upper
  out
}

# napredict() of intervals: NA rows in the place of rows na.exclude left out.
kc_napredict_interval <- function(na, iv) {
  slice <- function(h) matrix(iv[, , h], dim(iv)[1L], dim(iv)[2L], dimnames = dimnames(iv)[1:2])
  lower <- stats::napredict(na, slice(1L))
  out <- array(NA_real_, c(dim(lower), 2L), dimnames = c(dimnames(lower), dimnames(iv)[3L]))
  out[, , 1L] <- lower
  out[, , 2L] <- stats::napredict(na, slice(2L))
  out
}
