# The recipes of ARCHITECTURE.md ("Adding things"): for each thing one adds
# (a kernel, an approximation, a representation, a fitter, a metric, an
# option) one test that every part its recipe names is there and agrees
# with the others, so that an addition left half done fails here, naming
# the part that is missing. What a part computes is the module tests' (the
# tables' own files); this file checks that the parts exist and meet. The C
# headers and sources are read from the source tree (tools/run-tests.R), as
# test-docs.R reads _pkgdown.yml. (About 2 s.)

ns <- asNamespace("kernclass")

# The lines of a file of the source tree (a file the recipe names that is
# not there fails).
source_lines <- function(...) {
  if (!file.exists(test_path("..", "..", "DESCRIPTION"))) {
    skip("the package's sources are in the source tree only")
  }
  path <- test_path("..", "..", ...)
  expect_true(file.exists(path), label = file.path(...))
  if (file.exists(path)) readLines(path, warn = FALSE) else character()
}

# The lines of C function `name` in `lines`: from its definition to the
# closing brace in column 1.
c_function <- function(lines, name) {
  start <- grep(sprintf("^[A-Za-z][A-Za-z0-9_ *]*[ *]%s\\(", name), lines)
  expect_length(start, 1L)
  end <- start + which(lines[start:length(lines)] == "}")[1] - 1L
  lines[start:end]
}

# The enumerators of a C enum `enum_name` (a typedef) with their values
# where given: a named integer vector (NA where implicit).
c_enum <- function(lines, enum_name) {
  text <- paste(gsub("/\\*.*?\\*/", "", lines, perl = TRUE), collapse = " ")
  body <- regmatches(text, regexpr(sprintf("typedef enum \\{[^}]*\\} %s;", enum_name), text))
  expect_length(body, 1L)
  items <- trimws(strsplit(sub(".*\\{([^}]*)\\}.*", "\\1", body), ",")[[1]])
  items <- items[nzchar(items)]
  stats::setNames(suppressWarnings(as.integer(sub("^[A-Z_]+\\s*=?\\s*", "", items))),
                  sub("\\s*=.*", "", items))
}

# The Rd source of an installed help topic, and its aliases.
rd_db <- tools::Rd_db("kernclass")
rd_text <- function(topic) {
  rd <- rd_db[[paste0(topic, ".Rd")]]
  expect_false(is.null(rd), label = sprintf("help topic %s", topic))
  paste(unlist(as.character(rd)), collapse = "")
}
rd_aliases <- function(topic) {
  m <- regmatches(rd_text(topic), gregexpr("\\\\alias\\{[^}]*\\}", rd_text(topic)))[[1]]
  sub("^\\\\alias\\{(.*)\\}$", "\\1", m)
}

# An S3 method of `generic` that objects of classes `classes` reach.
has_method <- function(generic, classes) {
  any(vapply(c(classes, "default"), function(cl) {
    !is.null(utils::getS3method(generic, cl, optional = TRUE, envir = ns))
  }, logical(1)))
}

test_that("a kernel: its table row, C enumerator, kernel_def_of() case and help agree", {
  rows <- names(ns$kc_kernels)
  # the R row and the C enumerator, in the same order (test-kernel-table.R:
  # the flags and values of each)
  expect_identical(names(ns$kc_c$kernel), rows)
  expect_identical(unname(ns$kc_c$kernel), seq_along(rows) - 1L)
  kernel_h <- source_lines("src", "kernel.h")
  enum <- c_enum(kernel_h, "kc_kernel_type")
  expect_identical(names(enum)[length(enum)], "KC_KERNEL_COUNT")
  expect_length(enum, length(rows) + 1L)
  # one case of kernel_def_of() per enumerator, each naming its row and its
  # *_values() function
  def <- c_function(source_lines("src", "kernel.c"), "kernel_def_of")
  for (i in seq_along(rows)) {
    case <- grep(sprintf("case %s:", names(enum)[i]), def, value = TRUE, fixed = TRUE)
    expect_length(case, 1L)
    expect_match(case, sprintf("{\"%s\",", rows[i]), fixed = TRUE)
    expect_match(case, "[a-z]+_values\\}", label = rows[i])
  }
  # its formula in ?kernel_matrix's list, its name in ?estimate_gamma's
  for (k in rows) {
    expect_true(grepl(sprintf("\\\\item \\\\code\\{\"%s\"\\}[^\n]*: ", k), rd_text("kernel_matrix")),
                label = sprintf("?kernel_matrix's formula of %s", k))
    expect_true(grepl(sprintf("\\code{\"%s\"}", k), rd_text("estimate_gamma"), fixed = TRUE),
                label = sprintf("?estimate_gamma's %s", k))
  }
})

test_that("an approximation: constructor, table row, C feature type and its cases agree", {
  tab <- ns$kc_approximations
  maps <- Filter(function(r) r$representation == "features", tab)
  for (name in names(tab)) {
    row <- tab[[name]]
    # the constructor: exported, documented in ?approximations
    expect_true(row$constructor %in% getNamespaceExports("kernclass"), label = row$constructor)
    expect_true(row$constructor %in% rd_aliases("approximations"), label = row$constructor)
    expect_true(row$size %in% names(formals(ns[[row$constructor]])), label = name)
    # a map exactly where there is a C feature type
    expect_identical(!is.na(row$code), name %in% names(maps), label = name)
    expect_identical(is.function(row$map), name %in% names(maps), label = name)
  }
  # each map's code: one enumerator of kc_feature_type (src/feature-map.h),
  # named in ffi_enums (src/ffi-misc.c) as the row, unpacked by
  # feature_map_from() (src/ffi-features.c) and computed by each switch of
  # src/features.c
  enum <- c_enum(source_lines("src", "feature-map.h"), "kc_feature_type")
  expect_identical(sort(unname(enum)), sort(unname(vapply(maps, `[[`, integer(1), "code"))))
  expect_identical(ns$kc_c$feature[names(maps)], vapply(maps, `[[`, integer(1), "code"))
  enums <- c_function(source_lines("src", "ffi-misc.c"), "ffi_enums")
  from <- c_function(source_lines("src", "ffi-features.c"), "feature_map_from")
  features <- source_lines("src", "features.c")
  switches <- list(kc_feature_work_size = c_function(features, "kc_feature_work_size"),
                   feature_block = c_function(features, "feature_block"),
                   for_blocks = c_function(features, "for_blocks"))
  for (name in names(maps)) {
    e <- names(enum)[enum == maps[[name]]$code]
    expect_true(any(grepl(sprintf("{\"%s\", %s}", name, e), enums, fixed = TRUE)), label = e)
    expect_true(any(grepl(sprintf("f.type == %s)", e), from, fixed = TRUE)), label = e)
    for (s in names(switches)) {
      expect_true(any(grepl(sprintf("case %s:", e), switches[[s]], fixed = TRUE)),
                  label = sprintf("%s's case %s", s, e))
    }
  }
})

test_that("a representation: the operations of every fitter it runs", {
  tab <- ns$kc_approximations
  kinds <- c("exact", unique(vapply(tab, `[[`, "", "representation")))
  always <- c("kc_repr_scores", "kc_repr_print", "kc_repr_summary", "kc_repr_coef",
              "kc_repr_functions", "kc_repr_class", "kc_repr_decision", "kc_repr_classify",
              "kc_repr_posterior", "kc_repr_exact_only")
  by_fitter <- list(
    kernel_means = c("kc_repr_prepare", "kc_repr_mean_norms", "kc_repr_expand"),
    kernel_parzen = c("kc_repr_prepare", "kc_repr_mean_norms", "kc_repr_expand"),
    kernel_bayes = c("kc_repr_prepare", "kc_repr_model", "kc_repr_expand"),
    kernel_svm = c("kc_repr_svm_control", "kc_repr_svm_solve", "kc_repr_svm_model",
                   "kc_repr_svm_platt"))
  expect_setequal(names(by_fitter), names(ns$kc_fitters))
  for (kind in kinds) {
    repr <- ns$kc_repr_new(kind)
    expect_s3_class(repr, c(paste0("kc_", kind), "kc_repr"), exact = TRUE)
    rows <- Filter(function(r) r$representation == kind, tab)
    runs <- if (kind == "exact") names(ns$kc_fitters) else
      unique(unlist(lapply(rows, function(r) if (is.null(r$fitters)) names(ns$kc_fitters) else
        r$fitters)))
    for (g in always) expect_true(has_method(g, class(repr)), label = sprintf("%s for %s", g, kind))
    for (f in runs) {
      ops <- by_fitter[[f]]
      ok <- all(vapply(ops, has_method, NA, class(repr)))
      expect_true(ok, label = sprintf("%s's operations for %s", f, kind))
    }
  }
})

test_that("a fitter: its file, methods, worker, row, doors and help agree", {
  caret <- eval(formals(ns$kernclass_caret)$method)
  x <- rbind(matrix(c(0, 0.3, 1, 0.2, 0.1, 0.8), 3), matrix(c(2, 2.4, 3, 2.1, 2.9, 2.5), 3))
  y <- factor(rep(c("a", "b"), each = 3))
  for (name in names(ns$kc_fitters)) {
    row <- ns$kc_fitters[[name]]
    expect_identical(name, paste0("kernel_", row$method))
    # R/fit-<method>.R holds the generic, both methods and the worker
    file <- paste(source_lines("R", sprintf("fit-%s.R", row$method)), collapse = "\n")
    for (def in c(name, paste0(name, ".default"), paste0(name, ".formula"),
                  paste0("kc_fit_", row$method))) {
      expect_match(file, sprintf("\n%s <- function(", def), fixed = TRUE, label = def)
    }
    expect_identical(row$generic, ns[[name]])
    expect_identical(row$default, utils::getS3method(name, "default", envir = ns))
    expect_false(is.null(utils::getS3method(name, "formula", optional = TRUE, envir = ns)))
    expect_true(name %in% getNamespaceExports("kernclass"))
    expect_true(name %in% rd_aliases(name), label = sprintf("?%s", name))
    # caret's and parsnip's doors take its method
    expect_true(row$method %in% caret, label = sprintf("kernclass_caret()'s %s", row$method))
    if (identical(row$parsnip, "kernel_classifier")) {
      expect_true(row$method %in% ns$kc_classifier_methods(), label = row$method)
    }
    # broom's tidy() and glance() (door-broom.R) and the approximation
    # check's refit (repr-approx-check.R) read a model of it
    fit <- row$default(x, y, kernel = "rbf", gamma = 0.5)
    expect_s3_class(ns$tidy.kernclass(fit), "data.frame")
    expect_identical(ns$glance.kernclass(fit)$method, name)
    refit <- ns$kc_approx_refit_args(fit)
    expect_true(all(names(refit) %in% names(formals(row$default))),
                label = sprintf("%s's refit arguments", name))
    expect_identical(class(do.call(row$default, c(list(x = x, y = y), refit))), class(fit))
  }
})

test_that("a metric: its row, its formula and its help agree", {
  y <- factor(c("a", "b", "a", "b", "a"))
  o <- list(predicted = factor(c("a", "b", "b", "b", "a"), levels(y)),
            prob = cbind(a = c(0.8, 0.3, 0.4, 0.2, 0.6), b = c(0.2, 0.7, 0.6, 0.8, 0.4)),
            decision = c(1.2, -0.5, -0.1, -0.9, 0.3))
  help <- rd_text("kernel_cv")
  for (name in names(ns$kc_metrics)) {
    m <- ns$kc_metrics[[name]]
    expect_true(m$needs %in% c("class", "prob", "decision"), label = name)
    expect_true(isTRUE(m$larger) || isFALSE(m$larger), label = name)
    expect_true(is.character(m$label) && nzchar(m$label), label = name)
    v <- ns$kc_metric_value(name, o, y)
    expect_true(is.numeric(v) && length(v) == 1L && is.finite(v),
                label = sprintf("kc_metric_value()'s case of %s", name))
    expect_true(grepl(sprintf("\\code{\"%s\"}", name), help, fixed = TRUE),
                label = sprintf("?kernel_cv's metric %s", name))
  }
})

test_that("an option: its row and its help agree", {
  help <- paste(vapply(names(rd_db), function(f) rd_text(sub("\\.Rd$", "", f)), ""),
                collapse = "\n")
  for (name in names(ns$kc_options)) {
    row <- ns$kc_options[[name]]
    expect_true(startsWith(name, "kernclass."), label = name)
    expect_true(is.function(row$valid) && is.character(row$what) && nzchar(row$what), label = name)
    if (!is.null(row$default)) expect_true(row$valid(row$default), label = name)
    expect_true(grepl(name, help, fixed = TRUE), label = sprintf("the help of option %s", name))
  }
})
