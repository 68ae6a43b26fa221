# The `check` of an approximation (nystrom(), random_fourier(), cells():
# `check = s`): the exact classifier and the approximation fitted to the
# same s training rows, compared on s others. Documented in ?approximations
# ("The error, stated").

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
# on `check` other rows (kc_check_rows()), each counted once.
kc_approx_checked <- function(fit, d, spec, weights = NULL) {
  s <- spec$check
  if (is.null(s) || s == 0L) return(fit)
  rows <- kc_check_rows(d$y, s, weights)
  args <- kc_approx_refit_args(fit)
  spec0 <- spec
  spec0$check <- 0L
  one <- function(approx) {
    w <- if (!is.null(weights)) list(weights = weights[rows$train])
    # tuned cells: the parameters the cells tune that the call left out
    # (fit$approx$tuned_not_given) are left out of the approximation's refit
    # too, as its search must vary them (the exact model takes the model's)
    a <- if (is.null(approx)) args else args[setdiff(names(args), fit$approx$tuned_not_given)]
    do.call(kc_fitter_of(fit)$fun, c(list(x = d$x[rows$train, , drop = FALSE],
                                          y = d$y[rows$train], scale = FALSE, approx = approx),
                                     a, w))
  }
  test <- d$x[rows$test, , drop = FALSE]
  # as labels: a class with one row can be missing from the fits' classes
  exact <- as.character(stats::predict(one(NULL), test))
  approx <- as.character(stats::predict(one(spec0), test))
  truth <- as.character(d$y[rows$test])
  fit$approx$check <- c(rows = s, agreement = mean(exact == approx),
                        exact_accuracy = mean(exact == truth),
                        approx_accuracy = mean(approx == truth))
  fit
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
