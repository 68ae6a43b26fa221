# The property suite of the seams: every representation (exact, Nystrom,
# random Fourier, cells) with every fitter, through every operation a user
# has (fit, predict of each type, print, summary, plot, tidy, glance,
# augment, coef, fitted, update, saveRDS/readRDS, the `check` comparison,
# kernel_tune over the approximation, caret and parsnip where installed),
# on small random data with a rare class, observation weights, duplicated
# rows and a constant column. Each operation works, with what it gives
# consistent with predict(), or, where the combination is not supported
# (cells() with kernel_means, probabilities of a model without them),
# stops with an error of class "kernclass_error" that says why; warnings
# are kernclass's own. The
# settings of each combination (kernel, probabilities, scaling)
# are drawn with a fixed seed. (About 30 s.)

# The data: 3 inputs, a constant column, 4 duplicated rows, classes of 30,
# 26 and 5 rows (the rare one), positive weights.
seam_data <- function(seed) {
  set.seed(seed)
  n <- 57
  x <- matrix(rnorm(n * 3), n, 3)
  y <- ifelse(x[, 1] + 0.7 * x[, 2]^2 > 0.6, "a", "b")
  y[order(x[, 3])[1:5]] <- "r"
  df <- data.frame(x1 = x[, 1], x2 = x[, 2], x3 = x[, 3], const = 2.5,
                   cls = factor(y, levels = c("a", "b", "r")))
  df <- rbind(df, df[c(1, 2, 3, 8), ])
  rownames(df) <- NULL
  df$w <- stats::runif(nrow(df), 0.5, 2)
  df
}

# Runs an operation: its value, or its error; the warnings it gave.
seam_run <- function(expr) {
  warnings <- list()
  value <- withCallingHandlers(tryCatch(expr, error = identity), warning = function(w) {
    warnings[[length(warnings) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  list(value = value, warnings = warnings)
}

# An operation's outcome holds the property: it worked, or stopped with a
# kernclass error that has a message; every warning is kernclass's. An
# operation every model documents (`must`) has to work.
expect_seam <- function(out, what, must = TRUE) {
  v <- out$value
  if (inherits(v, "error") && must) {
    expect_true(FALSE, label = sprintf("%s: %s (%s)", what, conditionMessage(v), class(v)[1L]))
  } else if (inherits(v, "error")) {
    expect_true(inherits(v, "kernclass_error") && nzchar(conditionMessage(v)),
                label = sprintf("%s: %s (%s)", what, conditionMessage(v), class(v)[1L]))
  } else {
    succeed()
  }
  for (w in out$warnings) {
    expect_true(inherits(w, "kernclass_warning"),
                label = sprintf("%s warned: %s", what, conditionMessage(w)))
  }
  invisible(if (!inherits(v, "error")) v)
}

seam_specs <- list(
  exact = function(check = 0) NULL,
  nystrom = function(check = 0) nystrom(m = 12, check = check),
  fourier = function(check = 0) random_fourier(m = 24, check = check),
  cells = function(check = 0) cells(size = 25, check = check))

# Twice the size of an approximation (its row's size argument), for
# kernel_tune's grid.
seam_larger <- function(spec) {
  size <- asNamespace("kernclass")$kc_approx_of(spec)$size
  spec[[size]] <- 2L * spec[[size]]
  spec
}

fitters <- c("kernel_means", "kernel_parzen", "kernel_bayes", "kernel_svm")

test_that("every representation x fitter x operation works or stops with a classed error", {
  old <- options(kernclass.threads = 1L)
  on.exit(options(old), add = TRUE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  set.seed(2026)
  draws <- expand.grid(rep = names(seam_specs), fitter = fitters, stringsAsFactors = FALSE)
  draws$seed <- sample.int(1000, nrow(draws))
  draws$kernel <- sample(c("rbf", "laplace", "linear"), nrow(draws), replace = TRUE)
  draws$prob <- sample(c(TRUE, FALSE), nrow(draws), replace = TRUE)
  draws$scale <- sample(c(TRUE, FALSE), nrow(draws), replace = TRUE)
  for (i in seq_len(nrow(draws))) {
    dr <- draws[i, ]
    df <- seam_data(dr$seed)
    spec <- seam_specs[[dr$rep]]()
    what <- sprintf("%s with %s (%s kernel)", dr$fitter, dr$rep, dr$kernel)
    kernel <- if (dr$rep == "fourier" && dr$kernel == "linear") "rbf" else dr$kernel
    fitter <- get(dr$fitter)
    args <- list(cls ~ x1 + x2 + x3 + const, data = df, kernel = kernel, approx = spec)
    if (dr$fitter == "kernel_svm") {
      args$weights <- quote(w)
      args$probability <- dr$prob
    }
    if (dr$fitter == "kernel_bayes") args$type <- if (is.null(spec)) 2L else 1L
    args$scale <- dr$scale
    supported <- is.null(spec) || spec$method != "cells" || dr$fitter == "kernel_svm"
    set.seed(dr$seed)
    out <- seam_run(do.call(fitter, args))
    if (!supported) {
      expect_true(inherits(out$value, "kernclass_approx_unsupported_error"),
                  label = paste(what, "fit:", conditionMessage(out$value)))
      next
    }
    fit <- expect_seam(out, paste(what, "fit"))
    if (is.null(fit)) next

    # predict of every type, against the classes
    cls <- expect_seam(seam_run(predict(fit, df)), paste(what, "predict class"))
    expect_identical(levels(cls), levels(df$cls))
    dec <- expect_seam(seam_run(predict(fit, df, type = "decision")), paste(what, "decision"))
    expect_identical(NROW(dec), nrow(df))
    # probabilities need probability = TRUE (kernel_svm) or a density kernel (Parzen)
    prob <- expect_seam(seam_run(predict(fit, df, type = "prob")), paste(what, "prob"),
                        must = FALSE)
    if (!is.null(prob)) {
      expect_equal(unname(rowSums(prob)), rep(1, nrow(df)), tolerance = 1e-6)
      expect_true(all(prob >= 0 & prob <= 1))
    }
    expect_identical(expect_seam(seam_run(fitted(fit)), paste(what, "fitted")), unname(cls))

    # print, summary, plot to a null device
    expect_seam(seam_run(utils::capture.output(print(fit))), paste(what, "print"))
    expect_seam(seam_run(utils::capture.output(print(summary(fit)))), paste(what, "summary"))
    drawn <- expect_seam(seam_run(plot(fit, df, vars = c("x1", "x2"), grid = 15)),
                         paste(what, "plot"))
    if (!is.null(drawn)) expect_identical(dim(drawn$class), c(15L, 15L))
    expect_seam(seam_run(coef(fit)), paste(what, "coef"))

    # broom
    if (requireNamespace("generics", quietly = TRUE)) {
      td <- expect_seam(seam_run(generics::tidy(fit)), paste(what, "tidy"))
      # a row per decision function: the 3 classes' scores, or the 3 pairs'
      if (!is.null(td)) expect_identical(nrow(td), NCOL(dec))
      expect_seam(seam_run(generics::tidy(fit, component = "coefficients")),
                  paste(what, "tidy coefficients"))
      gl <- expect_seam(seam_run(generics::glance(fit)), paste(what, "glance"))
      if (!is.null(gl)) {
        expect_equal(gl$accuracy, mean(predict(fit, df) == df$cls))
        # every SVM ran its solver
        if (dr$fitter == "kernel_svm") expect_gt(gl$iterations, 0)
      }
      aug <- expect_seam(seam_run(generics::augment(fit)), paste(what, "augment"))
      if (!is.null(aug)) expect_identical(as.character(aug$.fitted), as.character(cls))
    }

    # update and a saved copy
    up <- expect_seam(seam_run({
      set.seed(dr$seed)
      update(fit)
    }), paste(what, "update"))
    if (!is.null(up)) expect_identical(predict(up, df), cls)
    file <- tempfile(fileext = ".rds")
    saveRDS(fit, file)
    back <- readRDS(file)
    unlink(file)
    expect_identical(predict(back, df, type = "decision"), dec)

    # the check of an approximation against the exact model
    if (!is.null(spec)) {
      ch_args <- args
      ch_args$approx <- seam_specs[[dr$rep]](check = 12)
      ch <- expect_seam(seam_run(do.call(fitter, ch_args)), paste(what, "check"))
      if (!is.null(ch)) {
        expect_true(all(ch$approx$check[-1L] >= 0 & ch$approx$check[-1L] <= 1))
      }
    }

    # kernel_tune with a tiny grid: over the approximation's size, else gamma
    grid <- if (is.null(spec)) list(gamma = c(0.3, 1)) else
      list(approx = list(spec, seam_larger(spec)))
    tune_args <- c(list(fitter, cls ~ x1 + x2 + x3 + const, data = df, grid = grid, folds = 2),
                   args[setdiff(names(args), c("", "data", "approx"))])
    if (is.null(spec) && kernel == "linear") tune_args$kernel <- "rbf"  # gamma is tuned
    tuned <- expect_seam(seam_run({
      set.seed(dr$seed)
      do.call(kernel_tune, tune_args)
    }), paste(what, "kernel_tune"))
    if (!is.null(tuned)) {
      expect_seam(seam_run(utils::capture.output(print(tuned), print(summary(tuned)))),
                  paste(what, "print tune"))
      expect_seam(seam_run(plot(tuned)), paste(what, "plot tune"))
    }
  }
})

test_that("caret and parsnip take every representation a fitter takes", {
  local_tz()
  old <- options(kernclass.threads = 1L)
  on.exit(options(old), add = TRUE)
  df <- seam_data(7)
  x <- df[c("x1", "x2", "x3", "const")]
  # one fitter per representation, drawn with a fixed seed
  set.seed(11)
  pick <- list(exact = sample(fitters, 1L), nystrom = sample(fitters, 1L),
               fourier = sample(fitters, 1L), cells = "kernel_svm")
  if (requireNamespace("caret", quietly = TRUE)) {
    for (rep in names(pick)) {
      method <- sub("kernel_", "", pick[[rep]])
      spec <- seam_specs[[rep]]()
      m <- kernclass_caret(method, approx = spec)
      set.seed(1)
      out <- seam_run(caret::train(x, df$cls, method = m, tuneLength = 1,
                                   trControl = caret::trainControl(method = "cv", number = 2)))
      tr <- expect_seam(out, paste("caret", method, rep))
      if (!is.null(tr)) expect_length(predict(tr, x), nrow(df))
    }
  }
  if (requireNamespace("parsnip", quietly = TRUE)) {
    for (rep in names(pick)) {
      fitter <- pick[[rep]]
      spec <- seam_specs[[rep]]()
      model <- if (fitter == "kernel_svm") {
        parsnip::set_engine(parsnip::svm_rbf(mode = "classification"), "kernclass", approx = spec)
      } else {
        parsnip::set_engine(kernel_classifier(method = sub("kernel_", "", fitter)),
                            "kernclass", approx = spec)
      }
      set.seed(1)
      out <- seam_run(parsnip::fit(model, cls ~ x1 + x2 + x3 + const, data = df))
      pf <- expect_seam(out, paste("parsnip", fitter, rep))
      if (!is.null(pf)) expect_identical(nrow(predict(pf, df)), nrow(df))
    }
  }
})
