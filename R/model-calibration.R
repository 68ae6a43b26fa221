# Probabilities from decision values, for any classifier built from class
# pairs: Platt scaling of each pair's decision values, then pairwise
# coupling of the pair probabilities into class probabilities.

# Platt's sigmoid P(first class | f) = 1 / (1 + exp(A f + B)), fitted by
# maximum likelihood with Platt's target values (N+ + 1) / (N+ + 2) for the
# first class and 1 / (N- + 2) for the second (a Bayesian prior that keeps
# A finite on separable data), by the Newton method with backtracking line
# search of Lin, Lin and Weng (2007), Algorithm 1.
#   dec   decision values (finite numbers), positive for the first class
#   label logical: TRUE where the point belongs to the first class
# Returns c(A = , B = ).
kc_platt_fit <- function(dec, label, max_iter = 100L, min_step = 1e-10, sigma = 1e-12,
                         eps = 1e-5) {
  stopifnot(is.numeric(dec), is.logical(label), length(dec) == length(label),
            !anyNA(dec), !anyNA(label), all(is.finite(dec)))
  # Decision values beyond 1e100 (a linear kernel on data of 1e150, scale =
  # FALSE) overflow the Hessian's sum of f^2: fit to f / s for a power of two
  # s (exact), and A / s is the slope for f. Ordinary values are not touched.
  top <- max(abs(dec), 0)
  if (top > 1e100) {
    s <- 2^ceiling(log2(top))
    ab <- kc_platt_fit(dec / s, label, max_iter, min_step, sigma, eps)
    return(c(A = ab[["A"]] / s, B = ab[["B"]]))
  }
  n_pos <- sum(label)
  n_neg <- length(label) - n_pos
  target <- ifelse(label, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
  # -log-likelihood, with z = A f + B: sum log(1 + e^z) - (1 - t) z, written
  # to avoid overflow for either sign of z
  objective <- function(A, B) {
    z <- A * dec + B
    sum(ifelse(z >= 0, target * z + log1p(exp(-z)), (target - 1) * z + log1p(exp(z))))
  }
  A <- 0
  B <- log((n_neg + 1) / (n_pos + 1))
  fval <- objective(A, B)
  for (iter in seq_len(max_iter)) {
    z <- A * dec + B
    # p = P(first | f) = 1 / (1 + e^z), q = 1 - p, each without overflow
    ez <- exp(-abs(z))
    p <- ifelse(z >= 0, ez / (1 + ez), 1 / (1 + ez))
    q <- 1 - p
    d2 <- p * q
    h11 <- sigma + sum(dec * dec * d2)
    h22 <- sigma + sum(d2)
    h21 <- sum(dec * d2)
    d1 <- target - p
    g1 <- sum(dec * d1)
    g2 <- sum(d1)
    if (abs(g1) < eps && abs(g2) < eps) break
    det <- h11 * h22 - h21 * h21
    dA <- -(h22 * g1 - h21 * g2) / det
    dB <- -(-h21 * g1 + h11 * g2) / det
    gd <- g1 * dA + g2 * dB
    step <- 1
    while (step >= min_step) {
      newA <- A + step * dA
      newB <- B + step * dB
      newf <- objective(newA, newB)
      if (newf < fval + 1e-4 * step * gd) break
      step <- step / 2
    }
    if (step < min_step) break  # no sufficient decrease: keep the last point
    A <- newA
    B <- newB
    fval <- newf
  }
  c(A = A, B = B)
}

# P(first class | f) = 1 / (1 + exp(A f + B)) from Platt's sigmoid; A and B
# recycle along dec (a matrix keeps its shape).
kc_platt_prob <- function(dec, A, B) {
  p <- stats::plogis(-(A * dec + B))  # R's logistic: exact in both tails, fast
  # a matrix of no rows times a vector of length 0 loses its shape in R
  if (!is.null(dim(dec)) && is.null(dim(p))) dim(p) <- dim(dec)
  p
}

# Pairwise coupling, method 2 of Wu, Lin and Weng (2004) (the method of
# LIBSVM): for each row, the class probabilities p minimising
#   sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2  subject to  sum(p) = 1,
# where r_ij = P(i | i or j) and r_ji = 1 - r_ij, with r first kept inside
# [1e-7, 1 - 1e-7] as LIBSVM does (two classes: p = (r, 1 - r) so clipped).
# Solved exactly, row by row, in C (src/coupling.c).
#   r  n x M matrix of P(first | first or second), pairs in kc_ovo_pairs order
# Returns the n x k matrix of class probabilities.
kc_pairwise_coupling <- function(r) {
  r <- as.matrix(r)
  k <- (1 + sqrt(1 + 8 * ncol(r))) / 2
  if (k != round(k)) stop("kernclass internal: r must have k(k-1)/2 columns")
  storage.mode(r) <- "double"
  .Call(ffi_pairwise_coupling, r, as.integer(k), kc_threads())
}

# ---- recalibration of class probabilities: isotonic or Platt ----------------

#' Recalibrate a classifier's probabilities
#'
#' Fits a monotone map from each class's probability to the frequency of
#' that class on held-out rows, one class against the rest, and makes
#' `predict(type = "prob")` (and the class of `rule = "prob"`, the default
#' of a recalibrated model, and [conformal()] sets) go through it. For any
#' classifier and representation with probabilities; for [kernel_svm()] on
#' top of its pairwise Platt sigmoids and coupling.
#'
#' @section Methods: `method = "isotonic"`: the isotonic regression
#'   ([stats::isoreg()], pool-adjacent-violators) of the class indicator on
#'   the class probability; new probabilities are interpolated linearly
#'   between its fitted values and kept constant beyond the held-out range
#'   (no parametric shape, needs a few hundred held-out rows).
#'   `method = "platt"`: Platt's sigmoid \eqn{1 / (1 + \exp(A z + B))}{1 /
#'   (1 + exp(A z + B))} of the logit \eqn{z = \log(p / (1 - p))}{z = log(p /
#'   (1 - p))}, fitted as the SVM's (with Platt's target values). With two
#'   classes the first class's map gives both probabilities; with more, the
#'   mapped probabilities are divided by their sum (a row where all are 0
#'   keeps the model's).
#'
#' @inheritParams conformal
#' @param object A fitted kernclass model with probabilities.
#' @param method `"isotonic"` or `"platt"`.
#' @return The model with a `recalibration` component (the maps); `NULL`
#'   as `method` removes it. A model calibrated by [conformal()] loses that
#'   calibration, with a warning of class
#'   `"kernclass_conformal_removed_warning"`: its scores came from the
#'   probabilities being replaced, and its sets would no longer hold their
#'   level. Call [conformal()] again on the recalibrated model, with
#'   calibration rows other than those the maps were fitted on.
#'   Held-out rows without some class are an error of class
#'   `"kernclass_missing_class_error"` (that class's map would never predict it).
#' @seealso [calibration_curve()] for the reliability diagram that shows whether
#'   it is needed.
#' @export
#' @examples
#' set.seed(3)
#' cv <- kernel_cv(kernel_means, Species ~ ., data = iris, folds = 5, metric = "brier")
#' fit <- recalibrate(kernel_means(Species ~ ., data = iris), cv = cv, method = "isotonic")
#' head(predict(fit, iris, type = "prob"))
recalibrate <- function(object, x = NULL, y = NULL, cv = NULL, method = c("isotonic", "platt")) {
  if (!inherits(object, "kernclass") || is.null(object$y)) {
    kc_abort("`object` must be a fitted kernclass classifier with classes.", arg = "object")
  }
  if (!is.null(method)) method <- kc_match_arg(method, arg = "method")
  had <- !is.null(object$recalibration)
  object$recalibration <- NULL
  if (!is.null(method)) {
    held <- kc_heldout_prob(object, x, y, cv, for_what = "recalibrate()")
    kc_check_heldout_classes(held, object$levels)
    G <- length(object$levels)
    maps <- lapply(seq_len(if (G == 2L) 1L else G), function(c) {
      kc_recalibration_fit(held$prob[, c], held$y == object$levels[c], method)
    })
    object$recalibration <- list(method = method, maps = maps, source = held$method)
  }
  if (had || !is.null(method)) object <- kc_drop_conformal(object, "recalibrate()")
  object
}

# conformal()'s scores were computed from the probabilities a new
# recalibration replaces: its sets would no longer hold their level (and its
# calibration rows are not kept, to score them anew). For recalibrate() and
# venn_abers().
kc_drop_conformal <- function(object, what) {
  if (is.null(object$conformal)) return(object)
  object$conformal <- NULL
  kc_warn(sprintf(paste0("%s changes the probabilities that conformal() computed its ",
                         "scores from, so the conformal calibration is removed: call conformal() ",
                         "again on the recalibrated model (on rows other than those of %s)."),
                  what, what), class = "conformal_removed")
  object
}

# recalibrate() fits a map per class, one against the rest: a class missing
# from the held-out rows would get a map to all-FALSE labels and never be
# predicted again.
kc_check_heldout_classes <- function(held, levels) {
  missing <- levels[tabulate(held$y, length(levels)) == 0L]
  if (!length(missing)) return(invisible(held))
  arg <- if (held$method == "cv") "cv" else "y"
  kc_abort(sprintf(paste0("recalibrate() fits a map for every class, but the held-out rows of ",
                          "`%s` have no row of class(es) %s: give held-out rows with every ",
                          "class (%s), e.g. a stratified sample, or a kernel_cv() result as `cv`."),
                   arg, kc_enum(missing), kc_enum(levels)), arg = arg, class = "missing_class")
}

# One class's map: isotonic knots (x, y) or Platt's c(A, B) on the logit.
kc_recalibration_fit <- function(p, label, method) {
  if (method == "platt") return(kc_platt_fit(kc_logit(p), label))
  fit <- stats::isoreg(p, as.numeric(label))
  # isoreg's fitted values in increasing order of p; tied p have one value
  list(x = sort(p), y = fit$yf)
}

kc_logit <- function(p) stats::qlogis(pmin(pmax(p, 1e-12), 1 - 1e-12))

kc_recalibration_map <- function(map, p) {
  if (is.numeric(map)) return(kc_platt_prob(kc_logit(p), map[["A"]], map[["B"]]))
  if (length(unique(map$x)) < 2L) return(rep(mean(map$y), length(p)))
  stats::approx(map$x, map$y, xout = p, rule = 2, ties = mean)$y
}

# The recalibrated n x G probabilities of the model's probabilities p (p
# itself without a recalibration, rc NULL).
kc_recalibrate_prob <- function(rc, p) {
  if (is.null(rc)) return(p)
  if (identical(rc$method, "venn_abers")) return(kc_venn_abers_prob(rc, p))  # R/model-venn-abers.R
  out <- p
  if (ncol(p) == 2L) {
    ok <- !is.na(p[, 1L])
    out[ok, 1L] <- kc_recalibration_map(rc$maps[[1L]], p[ok, 1L])
    out[, 2L] <- 1 - out[, 1L]
    return(out)
  }
  for (c in seq_len(ncol(p))) {
    ok <- !is.na(p[, c])
    out[ok, c] <- kc_recalibration_map(rc$maps[[c]], p[ok, c])
  }
  total <- rowSums(out)
  zero <- !is.na(total) & total <= 0
  out[zero, ] <- p[zero, ]
  total[zero] <- 1
  out / total
}

# ---- the reliability diagram ---------------------------------------------------

#' Calibration of class probabilities: the reliability diagram
#'
#' `calibration_curve()` computes the reliability diagram's table from held-out
#' probabilities: for each class (one against the rest; with two classes the
#' first level) the probabilities are cut into `bins` equal bins of the unit interval,
#' and each bin gives the mean predicted probability and the observed
#' frequency of the class, with a binomial standard error. Well calibrated
#' probabilities lie on the diagonal. `plot()` draws it (base graphics),
#' `autoplot()` with ggplot2 ([autoplot.kernclass()]).
#'
#' @param object A [kernel_cv()] or [kernel_tune()] result with out-of-fold
#'   probabilities (`metric = "logloss"` or `"brier"`), or a fitted model
#'   with held-out rows `x` and `y`.
#' @param x,y For a model: held-out rows and their classes.
#' @param bins The number of equal-width bins.
#' @param ... For `calibration_curve()`: `x`, `y` of a model. For `plot()`:
#'   graphical parameters for [graphics::plot()].
#' @return A data frame of class `"kernclass_calibration"` with a row per
#'   class and non-empty bin: `class`, `bin`, `lower`, `upper` (the bin's
#'   limits), `n` (rows in it), `predicted` (their mean probability of the
#'   class), `observed` (the share of them in the class) and `se`
#'   (\eqn{\sqrt{o(1 - o)/n}}{sqrt(o (1 - o) / n)}); its attribute `brier`
#'   is the Brier score of the probabilities.
#' @seealso [recalibrate()] to correct what it shows.
#' @export
#' @examples
#' set.seed(1)
#' cv <- kernel_cv(kernel_svm, Species ~ ., data = iris, folds = 5, metric = "logloss")
#' cal <- calibration_curve(cv, bins = 5)
#' cal
#' plot(cal)
calibration_curve <- function(object, ...) UseMethod("calibration_curve")

#' @rdname calibration_curve
#' @export
calibration_curve.kernel_cv <- function(object, bins = 10, ...) {
  kc_check_dots(...)
  pr <- if (inherits(object, "kernel_tune")) object$best_predictions else object
  if (is.null(pr$prob)) {
    kc_abort(paste0("calibration_curve() needs the out-of-fold probabilities, which kernel_cv() and ",
                    "kernel_tune() keep with metric = \"logloss\" or \"brier\"."), arg = "object")
  }
  kc_calibration_table(pr$prob, pr$y, bins)
}

#' @rdname calibration_curve
#' @export
calibration_curve.kernel_tune <- function(object, bins = 10, ...) {
  calibration_curve.kernel_cv(object, bins = bins, ...)
}

#' @rdname calibration_curve
#' @export
calibration_curve.kernclass <- function(object, x, y, bins = 10, ...) {
  kc_check_dots(...)
  kc_require(missing(x), "x", "held-out rows")
  kc_require(missing(y), "y", "the classes of the held-out rows")
  held <- kc_heldout_prob(object, x, y, NULL, for_what = "calibration_curve()")
  kc_calibration_table(held$prob, held$y, bins)
}

kc_calibration_table <- function(prob, y, bins) {
  if (!is.numeric(bins) || length(bins) != 1L || is.na(bins) || bins < 1 || bins != round(bins)) {
    kc_abort("`bins` must be a whole number of at least 1.", arg = "bins")
  }
  ok <- !is.na(y) & !is.na(rowSums(prob))
  prob <- prob[ok, , drop = FALSE]
  y <- y[ok]
  lv <- levels(y)
  classes <- if (length(lv) == 2L) 1L else seq_along(lv)
  breaks <- seq(0, 1, length.out = bins + 1L)
  out <- do.call(rbind, lapply(classes, function(c) {
    p <- prob[, c]
    hit <- as.numeric(as.integer(y) == c)
    b <- findInterval(p, breaks, rightmost.closed = TRUE, all.inside = TRUE)
    n <- tabulate(b, bins)
    keep <- n > 0
    bin_sum <- function(v) as.vector(tapply(v, factor(b, seq_len(bins)), sum, default = 0))
    o <- bin_sum(hit) / pmax(n, 1)
    data.frame(class = factor(lv[c], levels = lv), bin = seq_len(bins), lower = breaks[-(bins + 1L)],
               upper = breaks[-1L], n = n, predicted = bin_sum(p) / pmax(n, 1),
               observed = o, se = sqrt(o * (1 - o) / pmax(n, 1)))[keep, ]
  }))
  rownames(out) <- NULL
  onehot <- matrix(0, length(y), length(lv))
  onehot[cbind(seq_along(y), as.integer(y))] <- 1
  structure(out, brier = mean(rowSums((prob - onehot)^2)),
            class = c("kernclass_calibration", "data.frame"))
}

#' @rdname calibration_curve
#' @param main The title.
#' @export
plot.kernclass_calibration <- function(x, main = "Reliability diagram", ...) {
  d <- kc_calibration_plot_data(x)
  cols <- attr(d, "colours")
  graphics::plot(c(0, 1), c(0, 1), type = "n", xlab = "Predicted probability",
                 ylab = "Observed frequency", main = main, ...)
  graphics::abline(0, 1, lty = 2, col = "grey50")
  for (cl in levels(d$class)) {
    b <- d[d$class == cl, ]
    graphics::segments(b$predicted, b$lower_band, b$predicted, b$upper_band, col = cols[[cl]])
    graphics::lines(b$predicted, b$observed, type = "b", pch = 19, col = cols[[cl]])
  }
  graphics::legend("topleft", legend = names(cols), col = cols, lty = 1, pch = 19, bty = "n")
  invisible(x)
}

# What plot() and autoplot() draw of a reliability table: its rows, `class`
# a factor of the classes drawn (in the table's order), the bars' ends
# `lower_band` and `upper_band` (two standard errors either side of the
# observed frequency, within 0 and 1), and attribute "colours": one per
# class, named by it (the palette's first colours).
kc_calibration_plot_data <- function(x) {
  d <- as.data.frame(unclass(x))
  classes <- unique(as.character(d$class))
  d$class <- factor(as.character(d$class), levels = classes)
  d$lower_band <- pmax(d$observed - 2 * d$se, 0)
  d$upper_band <- pmin(d$observed + 2 * d$se, 1)
  structure(d, colours = stats::setNames(rep_len(grDevices::palette(), length(classes)), classes))
}
