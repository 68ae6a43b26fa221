# The approximation table (R/table-approx.R): each row against its
# constructor, the fitters, caret, and the C engine's feature types (enum
# KC_FEATURES_* in src/feature-map.h, read here through the maps' entry
# point: a code that names the other map computes other numbers, or is
# refused). (About 1 s.)

ns <- asNamespace("kernclass")
tab <- ns$kc_approximations

# A spec of each row, small.
spec_of <- function(name) {
  row <- tab[[name]]
  args <- stats::setNames(list(if (row$size == "size") 20 else 8), row$size)
  do.call(get(row$constructor, envir = ns), args)
}

test_that("each row's constructor makes specs of the row, formatted as its call", {
  for (name in names(tab)) {
    row <- tab[[name]]
    spec <- spec_of(name)
    expect_s3_class(spec, "kernclass_approximation")
    expect_identical(spec$method, name)
    expect_identical(ns$kc_approx_of(spec), row)
    expect_identical(format(spec), sprintf("%s(%s = %s)", row$constructor, row$size,
                                           spec[[row$size]]))
    expect_output(print(spec), row$label(spec), fixed = TRUE)
    expect_true(row$representation %in% c("features", "cells"))
    expect_identical(is.na(row$code), is.null(row$map))
    if (!is.null(row$fitters)) expect_true(all(row$fitters %in% names(ns$kc_fitters)))
  }
  expect_null(ns$kc_approx_of(NULL))
  expect_null(ns$kc_approx_of(list(method = "nystrom")))
})

test_that("the feature types are the C engine's: each code maps as its row says", {
  set.seed(1)
  x <- matrix(rnorm(40), 10)
  k <- ns$kc_kernel("rbf", 0.4, 3, 0, x)
  codes <- Filter(function(r) !is.na(r$code), tab)
  expect_identical(anyDuplicated(vapply(codes, `[[`, integer(1), "code")), 0L)
  for (name in names(codes)) {
    set.seed(2)
    map <- ns$kc_feature_map(spec_of(name), x, k)
    expect_identical(map$type, tab[[name]]$code)
    z <- .Call(ns$ffi_feature_product, x, NULL, map, ns$kc_kernel_code(k), 1L)
    # the map in plain R
    ref <- if (!is.null(map$proj)) {
      exp(-0.4 * outer(rowSums(x^2), rowSums(map$landmarks^2), "+") +
            0.8 * x %*% t(map$landmarks)) %*% map$proj
    } else {
      sqrt(2 / ncol(map$freq)) * cos(x %*% map$freq + rep(map$phase, each = nrow(x)))
    }
    expect_equal(z, ref, tolerance = 1e-10, label = name)
    # the other codes: other numbers or a refusal
    for (other in setdiff(c(0L, seq_len(max(unlist(lapply(codes, `[[`, "code"))) + 1L)),
                          map$type)) {
      map2 <- map
      map2$type <- other
      got <- tryCatch(.Call(ns$ffi_feature_product, x, NULL, map2, ns$kc_kernel_code(k), 1L),
                      error = identity)
      expect_true(inherits(got, "error") || !isTRUE(all.equal(got, ref)), label = other)
    }
  }
})

test_that("each row's fitters take it, the others refuse it with a classed error", {
  set.seed(3)
  x <- matrix(rnorm(120), 60)
  y <- factor(rep(c("a", "b"), 30))
  for (name in names(tab)) {
    row <- tab[[name]]
    for (fitter in names(ns$kc_fitters)) {
      f <- get(fitter, envir = ns)
      args <- list(x, y, approx = spec_of(name))
      if (fitter == "kernel_bayes") args$type <- 1L
      set.seed(4)
      got <- tryCatch(do.call(f, args), error = identity)
      if (is.null(row$fitters) || fitter %in% row$fitters) {
        expect_s3_class(got, fitter)
      } else {
        expect_s3_class(got, "kernclass_approx_unsupported_error")
        expect_match(conditionMessage(got), paste0(row$constructor, "()"), fixed = TRUE)
      }
    }
  }
})

# The text of argument `arg` on the installed help page of `topic`.
help_argument <- function(topic, arg) {
  rd <- tools::Rd_db("kernclass")[[paste0(topic, ".Rd")]]
  tag <- function(x) attr(x, "Rd_tag")
  args <- Filter(function(x) identical(tag(x), "\\arguments"), rd)[[1L]]
  items <- Filter(function(x) identical(tag(x), "\\item"), args)
  text <- function(x) gsub("\\s+", " ", paste(unlist(x), collapse = ""))
  hit <- Filter(function(it) identical(trimws(text(it[[1L]])), arg), items)
  if (length(hit) != 1L) return(NA_character_)
  text(hit[[1L]][[2L]])
}

test_that("each fitter's help for `approx` names every approximation it takes", {
  for (fitter in names(ns$kc_fitters)) {
    doc <- help_argument(fitter, "approx")
    expect_false(is.na(doc), info = fitter)
    for (name in names(tab)) {
      row <- tab[[name]]
      if (is.null(row$fitters) || fitter %in% row$fitters) {
        expect_match(doc, paste0(row$constructor, "()"), fixed = TRUE, info = fitter)
      }
    }
  }
})

test_that("the SVM on a representation with its own solver takes its defaults", {
  set.seed(5)
  x <- matrix(rnorm(120), 60)
  y <- factor(rep(c("a", "b"), 30))
  for (name in names(tab)) {
    row <- tab[[name]]
    fit <- kernel_svm(x, y, approx = spec_of(name))
    own <- if (is.null(row$tolerance)) formals(kernel_svm.default)$tolerance else row$tolerance
    expect_identical(fit$tolerance, own)
  }
})

test_that("caret tunes each row's size under its label", {
  for (name in names(tab)) {
    row <- tab[[name]]
    fitter <- if (is.null(row$fitters)) "kernel_means" else row$fitters[1L]
    m <- kernclass_caret(sub("kernel_", "", fitter), approx = spec_of(name))
    expect_true(row$size %in% m$parameters$parameter)
    expect_identical(m$parameters$label[m$parameters$parameter == row$size], row$size_label)
  }
})

test_that("each row sizes \"auto\" from n and has a cost model that grows with n", {
  for (name in names(tab)) {
    row <- tab[[name]]
    expect_identical(formals(get(row$constructor, envir = ns))[[row$size]], "auto")
    small <- row$auto$size(100)
    big <- row$auto$size(1e8)
    expect_true(is.integer(small) && small >= 1L && big >= small)
    spec <- ns$kc_approx_sized(spec_of(name), 1e4)
    for (svm in c(FALSE, TRUE)) {
      expect_gt(row$work(spec, 2e4, 10, svm), row$work(spec, 1e4, 10, svm))
    }
  }
})
