# The `check` of an approximation (nystrom(), random_fourier(), cells():
# `check = s`): the exact classifier and the approximation fitted to the
# same s training rows, compared on s others; then the approximation
# against an exact fit on a subsample of its time. Documented in
# ?approximations ("The error, stated", "The check against a subsample"),
# with the sizes "auto" chooses (R/table-approx.R).

#' @section The check against a subsample: with `check = s` the check also
#'   asks whether the approximation beats what its time buys
#'   exactly: on the same \eqn{s} held-out rows it scores this
#'   approximation (with the size and blend the model chose) fitted to all
#'   the other training rows (of weight above 0) and the exact classifier fitted to a random subsample of those rows
#'   (one row of each class, the rest uniform, drawn with R's RNG) of the
#'   size whose exact fit takes about the approximation's fit time. The
#'   size comes from cost models (the approximation table's `work`, and the
#'   exact fit's \eqn{n^2} kernel values: an SVM's solver at about 3e-10 s
#'   per kernel value and input plus 20, the class means at a quarter of
#'   the products' 1.2e-10 s, kernel_parzen() without a threshold search
#'   none, so its subsample is all the rows), not from the measured times,
#'   so that `set.seed()` reproduces the rows and the accuracies; print()
#'   gives both times, so that a machine or data far from the model shows.
#'   Where the subsample is more accurate by more than two standard errors
#'   of the difference (\eqn{\sqrt{(a(1-a) + e(1-e))/s}}{sqrt((a(1-a) +
#'   e(1-e)) / s)}, the binomial errors of the two accuracies \eqn{a} and
#'   \eqn{e} on the \eqn{s} rows), the fit warns, with class
#'   `"kernclass_approx_baseline_warning"`. `fit$approx$baseline` keeps the
#'   figures (`approx` and `exact`: rows, accuracy, seconds; `se`;
#'   `verdict`, one of `"subsample"`, `"tie"`, `"approximation"`) and the
#'   rows (`rows$test`, `rows$exact`). This part costs another fit of the
#'   approximation and an exact fit of about its time, about twice the
#'   model's own fit: it runs only with `check`, which is 0 (off) by
#'   default. Without it, the model keeps the cost model's size alone
#'   (`fit$approx$subsample`, the rows of an exact fit of about its time),
#'   and `print()` states it.
#'
#' @section Sizes chosen from the data: `nystrom()`, `random_fourier()` and
#'   `cells()` take their size `"auto"` by default, chosen at fit time from
#'   the number of training rows \eqn{n}: \eqn{m = 4\sqrt{n}}{m = 4 sqrt(n)}
#'   landmarks within 300 to 2000, \eqn{8\sqrt{n}}{8 sqrt(n)} random
#'   features within 1000 to 4000, cells of \eqn{10\sqrt{n}}{10 sqrt(n)}
#'   rows within 2000 to 5000 (rounded). Below 5,625, 15,625 and 40,000 rows
#'   they are the fixed defaults of before (300, 1000, 2000). The growth as
#'   \eqn{\sqrt{n}}{sqrt(n)} is that of the landmarks (Rudi et al. 2015)
#'   and random features (Rudi and Rosasco 2017) that keep the statistical
#'   rate of the exact kernel method; the caps keep a fit of \eqn{10^6}
#'   rows within minutes. Measured at \eqn{n = 40000}, \eqn{d = 20},
#'   `gamma` \eqn{1/d}, cost 1, on three rules (linear plus a sine, a
#'   circle in two inputs, the sign of \eqn{x_1 x_2 + 0.3\sin(2 x_3)}{x1
#'   x2 + 0.3 sin(2 x3)}; 20,000 test rows): Nystrom's SVM with 1000
#'   landmarks against 300 gained 0.0, 4.1 and 3.2 points in 3 to 5 times
#'   the time; cells of 5000 rows against 2000, 2.0, 2.2 and 3.0 points in
#'   1.5 to 2 times. The model states the choice (`print()`: "m = 800
#'   chosen from n = 40,000 rows: 4 sqrt(n) within 300 to 2,000"). An exact
#'   SVM on a subsample of about the same time came within a point of
#'   Nystrom's (either side) and beat the cells by 1.5 to 2.5 points at that
#'   size: the approximations pay off where the subsample that fits their
#'   time is small next to the data. Give `check` to see which holds for
#'   your data.
#'   Untuned cells blend the 5 nearest cells from 20,000 training rows on
#'   (see "Choosing K"): at 40,000 rows, 20 cells of 2000, 10,000 test rows,
#'   the own cell gave 0.7485 and the 5 nearest 0.7983 on the sign of
#'   \eqn{x_1 x_2 + 0.3 \sin(2 x_3)}{x1 x2 + 0.3 sin(2 x3)}, 0.7784 and
#'   0.8139 on `make_data()`'s rule of `inst/benchmarks/run.R`, the fit the
#'   same and prediction 5 times the cells' work.
#' @name approximations
NULL


# `check` of the constructors: its 2 * check rows must fit in a matrix.
kc_as_check <- function(check) {
  check <- kc_as_count(check, "check", why = "the check takes 2 x `check` training rows")
  if (check > .Machine$integer.max %/% 2L) {
    kc_abort(sprintf(paste0("`check` = %d would take %s training rows (fit and test); R's ",
                            "matrices hold at most 2^31 - 1 rows."), check, format(2 * check)),
             arg = "check", class = "size")
  }
  check
}

# With spec$check > 0: the exact classifier and this approximation, both
# fitted (by the fitter, with the fitted model's arguments and the rows'
# observation `weights`) to the same `check` random training rows, compared
# on `check` other rows (kc_check_rows()), each counted once; then, on the
# same held-out rows, the approximation fitted to all the other rows against
# an exact fit of a subsample of them (kc_approx_baseline()).
kc_approx_checked <- function(fit, d, spec, weights = NULL) {
  if (is.null(spec)) return(fit)  # the exact model
  spec0 <- kc_approx_as_given(spec)
  spec0$check <- 0L
  # without a check, the estimate alone: the exact fit of its time's rows
  used <- if (is.null(weights)) length(d$y) else sum(weights > 0)
  fit$approx$subsample <- kc_approx_baseline_rows(fit, kc_approx_as_fitted(fit), used,
                                                  ncol(d$x), nlevels(d$y))
  s <- spec$check
  if (is.null(s) || s == 0L) return(fit)
  rows <- kc_check_rows(d$y, s, weights)
  args <- kc_approx_refit_args(fit)
  one <- function(approx, train) {
    w <- if (!is.null(weights)) list(weights = weights[train])
    # tuned cells: the parameters the cells tune that the call left out
    # (fit$approx$tuned_not_given) are left out of the approximation's refit
    # too, as its search must vary them (the exact model takes the model's)
    a <- if (is.null(approx)) args else args[setdiff(names(args), fit$approx$tuned_not_given)]
    do.call(kc_fitter_of(fit)$fun, c(list(x = d$x[train, , drop = FALSE],
                                          y = d$y[train], scale = FALSE, approx = approx),
                                     a, w))
  }
  test <- d$x[rows$test, , drop = FALSE]
  # as labels: a class with one row can be missing from the fits' classes
  labels <- function(model) as.character(stats::predict(model, test))
  exact <- labels(one(NULL, rows$train))
  approx <- labels(one(spec0, rows$train))
  truth <- as.character(d$y[rows$test])
  fit$approx$check <- c(rows = s, agreement = mean(exact == approx),
                        exact_accuracy = mean(exact == truth),
                        approx_accuracy = mean(approx == truth))
  fit$approx$baseline <- kc_approx_baseline(fit, d, kc_approx_as_fitted(fit), rows$test, weights,
                                            one, labels, truth)
  fit
}

# The model's approximation with the sizes and blend it chose, without a
# check: the baseline refits this, as a size or blend chosen anew from
# fewer rows could differ (untuned cells blend from 20,000 rows on).
kc_approx_as_fitted <- function(fit) {
  spec <- fit$approx$spec
  spec$check <- 0L
  spec$chosen <- NULL
  if (!is.null(fit$approx$blend$rule)) spec$blend <- fit$approx$blend$K
  spec
}

# The subsample baseline: the approximation (spec, as fitted) fitted to every
# training row of weight > 0 outside `test`, and the exact model fitted to
# a random subsample of those rows (`rows$exact`) of the size whose exact fit the cost
# models (kc_approx_baseline_rows()) say takes the approximation's time,
# both timed and scored on the `test` rows; a warning where the subsample
# is more accurate by more than 2 standard errors of the difference (each
# accuracy's binomial one on the test rows). The sizes come from the cost
# models, not from the times, so that set.seed() reproduces the figures.
kc_approx_baseline <- function(fit, d, spec, test, weights, one, labels, truth) {
  used <- if (is.null(weights)) seq_along(d$y) else which(weights > 0)
  rest <- setdiff(used, test)
  timed <- function(approx, train) {
    t <- proc.time()[["elapsed"]]
    acc <- mean(labels(one(approx, train)) == truth)
    c(rows = length(train), accuracy = acc, seconds = proc.time()[["elapsed"]] - t)
  }
  a <- timed(spec, rest)
  size <- kc_approx_baseline_rows(fit, spec, length(rest), ncol(d$x), nlevels(d$y))
  sub <- kc_baseline_draw(rest, d$y, size)
  e <- timed(NULL, sub)
  se <- sqrt((a[["accuracy"]] * (1 - a[["accuracy"]]) + e[["accuracy"]] * (1 - e[["accuracy"]])) /
               length(test))
  diff <- e[["accuracy"]] - a[["accuracy"]]
  b <- list(test = length(test), approx = a, exact = e, se = se,
            verdict = if (diff > 2 * se) "subsample" else if (-diff > 2 * se) "approximation" else
              "tie",
            fitter = kc_fitter_of(fit)$name, spec = fit$approx$spec,
            rows = list(test = test, exact = sub))
  if (b$verdict == "subsample") kc_warn(kc_approx_baseline_text(b), class = "approx_baseline")
  b
}

# The subsample's rows: the largest n (at most `rows`, at least 2 per class
# up to 50) whose exact fit the fitter's cost model (its registry row's `work`) says takes no
# longer than the approximation's fit of `rows` rows (its table row's
# `work`), d inputs.
kc_approx_baseline_rows <- function(fit, spec, rows, d, G) {
  def <- kc_fitter_of(fit)
  spec <- kc_approx_sized(spec, rows)
  budget <- kc_approx_of(spec)$work(spec, rows, d, def$svm)
  per <- def$work(fit, d)
  n <- if (per > 0) floor(sqrt(budget / per)) else rows
  as.integer(min(rows, max(n, 2L * G, 50L)))
}

# `size` of `rows` drawn at random, one of each class first (the exact fit
# needs them all), the rest uniform.
kc_baseline_draw <- function(rows, y, size) {
  if (size >= length(rows)) return(rows)
  by_class <- split(rows, y[rows], drop = TRUE)
  first <- vapply(by_class, function(v) v[sample.int(length(v), 1L)], integer(1))
  others <- setdiff(rows, first)
  sort(c(unname(first), others[sample.int(length(others), size - length(first))]))
}

kc_approx_baseline_text <- function(b) {
  row <- kc_approx_of(b$spec)
  sprintf(paste0("%s: an exact %s() on a %s-row subsample, sized to the approximation's time, ",
                 "was more accurate on %d held-out rows (%.1f%% against %.1f%%; 2 standard errors ",
                 "%.1f points): the subsample is better. Consider a larger `%s`, or the exact ",
                 "model on a subsample of the rows."),
          format(b$spec), b$fitter, format(b$exact[["rows"]], big.mark = ","), b$test,
          100 * b$exact[["accuracy"]], 100 * b$approx[["accuracy"]], 200 * b$se, row$size)
}

# The check's lines of print() and summary() (fa: the model's `approx`);
# without a check, the cost model's subsample.
kc_approx_check_lines <- function(fa) {
  ch <- fa$check
  if (is.null(ch)) {
    if (!is.null(fa$subsample)) {
      cat(sprintf(paste0("  by the cost model an exact fit of %s training rows takes about this ",
                         "fit's time: check = s compares the two on s held-out rows\n"),
                  format(fa$subsample, big.mark = ",")))
    }
    return(invisible())
  }
  cat(sprintf(paste0("  against the exact model (both fitted to %d rows, tested on %d others): ",
                     "agreement %.1f%%, accuracy %.1f%% exact, %.1f%% approximate\n"),
              as.integer(ch[["rows"]]), as.integer(ch[["rows"]]), 100 * ch[["agreement"]],
              100 * ch[["exact_accuracy"]], 100 * ch[["approx_accuracy"]]))
  b <- fa$baseline
  if (is.null(b)) return(invisible())
  cat(sprintf(paste0("  against a subsample (on the %d held-out rows): the approximation fitted ",
                     "to the other %s rows %.1f%% (%.2f s); an exact %s() on %s, %.1f%% ",
                     "(%.2f s): %s\n"),
              b$test, format(b$approx[["rows"]], big.mark = ","), 100 * b$approx[["accuracy"]],
              b$approx[["seconds"]], b$fitter,
              if (b$exact[["rows"]] < b$approx[["rows"]]) {
                sprintf("%s of them (sized to its time by the cost model)",
                        format(b$exact[["rows"]], big.mark = ","))
              } else "all of them (by the cost model no slower to fit)",
              100 * b$exact[["accuracy"]], b$exact[["seconds"]],
              switch(b$verdict,
                     subsample = sprintf("the subsample is better (beyond 2 standard errors, %.1f points)",
                                         200 * b$se),
                     approximation = "the approximation is better (beyond 2 standard errors)",
                     tie = sprintf("within 2 standard errors (%.1f points)", 200 * b$se))))
  invisible()
}

# "; <how the size was chosen>" for a spec sized by "auto", else "".
kc_approx_chosen_text <- function(spec) {
  if (is.null(spec$chosen)) "" else paste0("; ", spec$chosen)
}

# The check's rows: `s` to fit and `s` other ones to test, drawn among the
# rows of weight > 0, stratified so that the fits see every class and the
# test has every class with two rows or more: one row of each such class in
# each half, the one row of a class that has one in the fit, the rest
# uniform. list(train, test).
kc_check_rows <- function(y, s, weights = NULL) {
  used <- if (is.null(weights)) seq_along(y) else which(weights > 0)
  counts <- tabulate(y[used], nlevels(y))
  G <- sum(counts > 0)
  if (length(used) < 2 * s || s < G) {
    kc_abort(sprintf(paste0("`check` = %d needs at least %s training rows%s (fit and test) and ",
                            "at least one per class in the fit (%d classes); there are %d. ",
                            "Give a `check` from %d to %d, or 0 for none."),
                     s, format(2 * s), if (is.null(weights)) "" else " of weight > 0",
                     G, length(used), G, length(used) %/% 2L), arg = "check")
  }
  by_class <- split(used, y[used], drop = TRUE)
  pick <- function(v, k) v[sample.int(length(v), k)]
  drawn <- lapply(by_class, function(v) pick(v, min(2L, length(v))))
  train <- vapply(drawn, `[`, integer(1), 1L)
  test <- unlist(lapply(drawn, `[`, -1L), use.names = FALSE)
  rest <- pick(setdiff(used, c(train, test)), 2 * s - length(train) - length(test))
  to_train <- seq_along(rest) <= s - length(train)
  list(train = unname(c(train, rest[to_train])), test = c(test, rest[!to_train]))
}

# The arguments that define a fitted model besides data and approximation:
# the kernel's, then the fitter's (its registry row's `refit`).
kc_approx_refit_args <- function(fit) {
  k <- fit$kernel
  args <- list(kernel = k$name, gamma = k$gamma, degree = k$degree, coef0 = k$coef0)
  more <- kc_fitter_of(fit)$refit(fit)
  for (nm in names(more)) args[[nm]] <- more[[nm]]
  args
}
