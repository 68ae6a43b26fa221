# The sets and p-values of a model calibrated by conformal()
# (R/model-conformal.R): the scores s(x, c) of every class, and for each new
# row and class the number of calibration scores strictly below its score,
# from which both follow (a class is in the set at `level` where that count
# is below the rank k = ceiling((n + 1) level); its p-value is (n - count +
# 1) / (n + 1), the share of calibration scores at or above it, the new row
# counted in).

# The n x G matrix of scores s(x, c) of every class from probabilities, for
# the calibration `cf` (its `score`, and `lambda`, `k_reg` of "raps"). The
# rank of class c is 1 + the number of classes more probable than it, so
# tied classes share a rank and a score; no randomisation. The sums of
# "aps" and "raps" are rounded to 12 decimals: the same probabilities
# summed in another order (the least probable class's score is 1 for every
# row) must tie, not differ by rounding.
kc_conformal_scores <- function(prob, cf) {
  if (cf$score == "prob") return(1 - prob)
  out <- prob
  for (c in seq_len(ncol(prob))) {
    above <- prob > prob[, c]
    out[, c] <- switch(cf$score,
      topk = rowSums(above) + 1,
      aps = round(rowSums(prob * above) + prob[, c], 12),
      raps = round(rowSums(prob * above) + prob[, c] +
                     cf$lambda * pmax(rowSums(above) + 1 - cf$k_reg, 0), 12))
  }
  out
}

# The rank k = ceiling((n + 1) level) of the quantile (for n calibration
# scores, a vector), where (n + 1) level that is a whole number up to
# rounding counts as that number (0.7 * 10 is 7.000000000000001 in
# doubles), so that the set is exactly {c : p_c > 1 - level}.
kc_conformal_rank <- function(n, level) {
  t <- (n + 1) * level
  r <- round(t)
  ifelse(abs(t - r) <= 1e-9 * pmax(t, 1), r, ceiling(t))
}

# The scores of new rows (`prob`: the model's probabilities of the complete
# rows `x`) that the calibration compares with its scores: a list with a
# matrix per fold model (CV+, each fold's model's probabilities through the
# model's recalibration), else the one matrix of the model's.
kc_conformal_new_scores <- function(object, prob, x) {
  cf <- object$conformal
  if (!identical(cf$method, "cv+")) return(list(kc_conformal_scores(prob, cf)))
  lapply(cf$models, function(m) {
    p <- kc_recalibrate_prob(object$recalibration, kc_predict_rows(m, x, "prob"))
    kc_conformal_scores(p, cf)
  })
}

# For new rows' scores `new` (kc_conformal_new_scores()): `below`, the n x G
# matrix of the number of calibration scores strictly below each row's
# score of each class (CV+: summed over the folds, each fold's calibration
# scores against that fold's model's score of the row; Mondrian: among the
# calibration rows of that class), and `n`, the number of calibration
# scores each class is compared with.
kc_conformal_counts <- function(object, new) {
  cf <- object$conformal
  G <- length(object$levels)
  fold <- if (is.null(cf$fold)) rep(1L, length(cf$scores)) else cf$fold
  cls <- as.integer(cf$y)
  below <- matrix(0L, nrow(new[[1L]]), G, dimnames = list(NULL, object$levels))
  n <- integer(G)
  for (c in seq_len(G)) {
    in_c <- if (cf$mondrian) cls == c else rep(TRUE, length(cls))
    n[c] <- sum(in_c)
    for (k in seq_along(new)) {
      ref <- sort(cf$scores[in_c & fold == k])
      below[, c] <- below[, c] + findInterval(new[[k]][, c], ref, left.open = TRUE)
    }
  }
  list(below = below, n = n)
}

# The sets (`what` = "set", a logical matrix) or p-values ("pvalue") of the
# complete rows x with model probabilities `prob`.
kc_conformal_predict <- function(object, prob, x, level, what) {
  if (is.null(object$conformal)) {
    kc_abort(sprintf(paste0("type = \"%s\" needs a model calibrated by conformal(), e.g. ",
                            "conformal(fit, x_cal, y_cal)."), what),
             arg = "type", class = "set_unavailable")
  }
  cnt <- kc_conformal_counts(object, kc_conformal_new_scores(object, prob, x))
  n <- rep(cnt$n, each = nrow(cnt$below))
  if (what == "pvalue") return((n - cnt$below + 1) / (n + 1))
  cnt$below < rep(kc_conformal_rank(cnt$n, level), each = nrow(cnt$below))
}

kc_check_level <- function(level) {
  if (!is.numeric(level) || length(level) != 1L || is.na(level) || level <= 0 || level >= 1) {
    kc_abort("`level` must be a number between 0 and 1, e.g. 0.9.", arg = "level")
  }
  invisible(level)
}

#' Conformal prediction sets
#'
#' What `predict(type = "set")` of a model calibrated by [conformal()]
#' returns: a logical matrix with a row per predicted row and a column per
#' class, `TRUE` where the class is in the row's set (`NA` rows where the row
#' cannot be predicted), of class `"kernclass_sets"` with the attributes
#' `level`, `score`, `mondrian` and `method`. `as.list()` gives the sets as
#' character vectors (the list-column of `augment()`).
#'
#' @param x,object A `"kernclass_sets"` matrix.
#' @param y Optional true classes of the rows, for the coverage.
#' @param n The number of rows to print.
#' @param ... Not used.
#' @return `summary()`: an object of class `"summary.kernclass_sets"`, a
#'   list with `level`, `n`, `size` (the mean set size), `sizes` (the share
#'   of rows by set size), `empty`, `singleton`, and with `y` `coverage` (the
#'   share of rows whose set holds their class) and `class_coverage` (per
#'   class). `as.list()`: a list of character vectors.
#' @name kernclass_sets
#' @examples
#' fit <- conformal(kernel_parzen(Species ~ ., data = iris[c(TRUE, FALSE), ]),
#'                  iris[c(FALSE, TRUE), ], iris$Species[c(FALSE, TRUE)])
#' s <- predict(fit, iris, type = "set", level = 0.8)
#' s
#' summary(s, iris$Species)
#' as.list(s)[1:3]
NULL

kc_new_sets <- function(m, conformal, level) {
  m <- unclass(m)
  structure(m, level = level, score = conformal$score, mondrian = conformal$mondrian,
            method = conformal$method, class = "kernclass_sets")
}

# napredict() of sets: NA rows in the place of rows na.exclude left out.
kc_napredict_sets <- function(na, sets) {
  a <- attributes(sets)
  out <- stats::napredict(na, unclass(sets))
  attributes(out) <- c(attributes(out)[c("dim", "dimnames")], a[setdiff(names(a), c("dim", "dimnames"))])
  out
}

#' @rdname kernclass_sets
#' @export
as.list.kernclass_sets <- function(x, ...) {
  kc_check_dots(...)
  lv <- colnames(x)
  m <- unclass(x)
  lapply(seq_len(nrow(m)), function(i) if (anyNA(m[i, ])) NA_character_ else lv[m[i, ]])
}

kc_set_labels <- function(x) {
  vapply(as.list(x), function(s) {
    if (length(s) == 1L && is.na(s)) NA_character_ else paste0("{", paste(s, collapse = ", "), "}")
  }, character(1))
}

#' @rdname kernclass_sets
#' @export
print.kernclass_sets <- function(x, n = 10, ...) {
  kc_check_dots(...)
  cat(sprintf("Conformal prediction sets at level %s (%s, score %s%s): %d rows\n",
              format(attr(x, "level")), attr(x, "method"), attr(x, "score"),
              if (isTRUE(attr(x, "mondrian"))) ", per class" else "", nrow(x)))
  lab <- kc_set_labels(x)
  names(lab) <- rownames(x)
  print(utils::head(lab, n), quote = FALSE)
  if (nrow(x) > n) cat(sprintf("... %d more rows\n", nrow(x) - n))
  invisible(x)
}

#' @rdname kernclass_sets
#' @export
summary.kernclass_sets <- function(object, y = NULL, ...) {
  kc_check_dots(...)
  m <- unclass(object)
  ok <- !is.na(rowSums(m))
  size <- rowSums(m[ok, , drop = FALSE])
  out <- list(level = attr(object, "level"), n = sum(ok), size = mean(size),
              sizes = table(factor(size, levels = 0:ncol(m))) / sum(ok),
              empty = mean(size == 0), singleton = mean(size == 1))
  if (!is.null(y)) {
    y <- kc_heldout_labels(y, colnames(m))
    if (length(y) != nrow(m)) {
      kc_abort(sprintf("`y` has %d values for %d sets.", length(y), nrow(m)), arg = "y")
    }
    keep <- ok & !is.na(y)
    hit <- m[cbind(which(keep), as.integer(y[keep]))]
    out$coverage <- mean(hit)
    out$class_coverage <- tapply(hit, y[keep], mean)
  }
  structure(out, class = "summary.kernclass_sets")
}

#' @export
print.summary.kernclass_sets <- function(x, ...) {
  cat(sprintf("Conformal prediction sets at level %s, %d rows\n", format(x$level), x$n))
  cat(sprintf("Mean set size: %.3f (empty %.1f%%, one class %.1f%%)\n", x$size,
              100 * x$empty, 100 * x$singleton))
  cat("Share of rows by set size:\n")
  print(round(unclass(x$sizes), 4))
  if (!is.null(x$coverage)) {
    cat(sprintf("Coverage: %.2f%%\nCoverage per class:\n", 100 * x$coverage))
    print(round(x$class_coverage, 4))
  }
  invisible(x)
}
