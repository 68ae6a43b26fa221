# kernel_svm()'s fit after its arguments are checked (R/fit-svm.R), written
# once over the representation layer (R/repr.R), and the exact kernel's
# operations: SMO on the kernel's tiles (kc_svm_binary() and the class
# pairs side by side, kc_svm_pairs()), every solve through the one solve
# entry (kc_svm_solve(), src/ffi-svm.c). Platt's sigmoids: R/fit-svm-platt.R.
# The features' operations are in R/repr-approx.R; cells fit an exact SVM
# per cell (R/repr-cells.R).

# kernel_svm() on a representation (R/repr.R): C the per-row bounds (0:
# left out), a list of one vector per cost (kernel_tune()'s cost path gives
# several: kc_svm_cost_path()), control the solver's settings (kernel, type,
# cost (one per C), nu, tolerance, max_iter, cachesize, shrinking), args the
# rest (observation and class weights as given, probability, the names the
# call gave, the calls, one per cost); a list of one model per cost. Written
# once over the representation's operations (the exact kernel's below, the
# features' in R/repr-approx.R, the cells' in R/repr-cells.R, whose solve
# runs this per cell):
#   kc_repr_svm_control(repr, spec, control, given): the solver's settings
#     on it (its own defaults, the types and settings it refuses), checked
#     before anything is computed;
#   kc_repr_svm_solve(r, problems, pairs, C, control): the binary
#     solutions of one cost, one per problem (rows; class pairs[m, "first"]
#     as +1); kc_repr_svm_costs() those of every cost;
#   kc_repr_svm_model(r, fits, pairs, control): the model's fields;
#   kc_repr_svm_platt(r, fits, pairs, C, control): Platt's A and B per pair
#     (NULL: the representation's probabilities are its own).
kc_repr_svm <- function(repr, spec, d, k, C, control, args) {
  control <- kc_repr_svm_control(repr, spec, control, args$given)
  control$probability <- args$probability  # the exact pairs solve Platt's folds with the pairs
  control[c("weights", "class.weights")] <- args[c("weights", "class.weights")]  # cells' SVMs
  one <- control$type == "one-classification"
  if (one) {
    pairs <- matrix(NA_integer_, 1L, 2L, dimnames = list("", c("first", "second")))
    problems <- list(seq_len(nrow(d$x)))
  } else {
    pairs <- kc_ovo_pairs(levels(d$y))
    problems <- lapply(seq_len(nrow(pairs)), function(m) which(as.integer(d$y) %in% pairs[m, ]))
  }
  progress <- kc_repr_progressor(repr, nrow(d$x), 3L + args$probability)
  r <- kc_repr_train(spec, d, k, "kernel_svm", uses = "svm", progress = progress)
  costs <- kc_repr_svm_costs(r, problems, pairs, C, control)
  lapply(seq_along(C), function(i) kc_svm_at_cost(i, {
    control$cost <- control$cost[[i]]
    fits <- costs[[i]]
    fit <- do.call(new_kernclass, c(
      list(d, k, call = args$calls[[i]], type = control$type,
           class = if (one) c("kernel_svm_oneclass", "kernel_svm") else
             c("kernel_svm", "kernclass_ovo")),
      kc_repr_svm_model(r, fits, pairs, control),
      list(C = C[[i]], class.weights = args$class.weights, tolerance = control$tolerance)),
      quote = TRUE)  # the call is a value, not run
    if (control$type != "C-classification") fit$nu <- control$nu
    if (one) fit$levels <- c("inlier", "outlier")
    if (args$probability && !is.null(ab <- kc_repr_svm_platt(r, fits, pairs, C[[i]], control))) {
      fit$probA <- stats::setNames(ab[1L, ], rownames(pairs))
      fit$probB <- stats::setNames(ab[2L, ], rownames(pairs))
    }
    kc_approx_checked(fit, d, spec, args$weights)
  }))
}

# expr, its error told the cost (i, its position among the fit's) it arose
# at (kernel_tune()'s cost path names that cost's cell).
kc_svm_at_cost <- function(i, expr) {
  tryCatch(expr, error = function(e) {
    if (is.null(e$kc_cost)) e$kc_cost <- i
    stop(e)
  })
}

kc_repr_svm_control <- function(repr, spec, control, given) UseMethod("kc_repr_svm_control")

#' @export
kc_repr_svm_control.kc_exact <- function(repr, spec, control, given) control

kc_repr_svm_solve <- function(r, problems, pairs, C, control) {
  UseMethod("kc_repr_svm_solve")
}

# Exact: SMO per problem, the class pairs of a multi-class C-SVC side by side
# where they can be (kc_svm_pairs()), else each as a unit of work.
#' @export
kc_repr_svm_solve.kc_exact <- function(r, problems, pairs, C, control) {
  one <- control$type == "one-classification"
  # eta, its signs and the coefficients: n x pairs each
  kc_check_memory(32 * nrow(r$x) * nrow(pairs),
                  sprintf("The exact SVM's coefficients of %d class pair(s) over %d rows",
                          nrow(pairs), nrow(r$x)), kc_memory_route)
  if (control$type == "nu-classification") kc_svm_check_nu(control$nu, C, r$y, pairs)
  fits <- if (!one) kc_svm_pairs(r$x, r$y, problems, pairs, C, control)
  if (is.null(fits)) {
    fits <- kc_problems_lapply(seq_len(nrow(pairs)), function(m) {
      kc_svm_binary(r$x, r$y, problems[[m]], if (!one) pairs[m, "first"], C, control,
                    rownames(pairs)[m])
    })
  }
  fits
}

# The solutions of every cost (C: the bounds per cost, control$cost the
# costs), per cost as kc_repr_svm_solve() gives them: each on its own (the
# representations but the exact one), or as the exact kernel's cost path.
kc_repr_svm_costs <- function(r, problems, pairs, C, control) UseMethod("kc_repr_svm_costs")

#' @export
kc_repr_svm_costs.default <- function(r, problems, pairs, C, control) {
  lapply(seq_along(C), function(i) kc_svm_at_cost(i, {
    control$cost <- control$cost[[i]]
    kc_repr_svm_solve(r, problems, pairs, C[[i]], control)
  }))
}

# Exact, C-SVC with several costs: each class pair's costs one problem of the
# solve entry (kc_svm_binary_costs(): in increasing cost, warm-started, one
# kernel store), the pairs one after another; the solutions checked cost by
# cost, pair by pair (the first error is the first cost's that has one).
# The nu types take no warm start: each cost on its own.
#' @export
kc_repr_svm_costs.kc_exact <- function(r, problems, pairs, C, control) {
  if (length(C) < 2L || control$type != "C-classification") return(NextMethod())
  kc_check_memory(32 * nrow(r$x) * nrow(pairs),
                  sprintf("The exact SVM's coefficients of %d class pair(s) over %d rows",
                          nrow(pairs), nrow(r$x)), kc_memory_route)
  per_pair <- lapply(seq_len(nrow(pairs)), function(m) {
    kc_svm_binary_costs(r$x, r$y, problems[[m]], pairs[m, "first"], C, control,
                        rownames(pairs)[m])
  })
  lapply(seq_along(C), function(i) {
    kc_svm_at_cost(i, lapply(seq_len(nrow(pairs)), function(m) per_pair[[m]][[i]]()))
  })
}

kc_repr_svm_model <- function(r, fits, pairs, control) UseMethod("kc_repr_svm_model")

# Exact: the dual variables eta, the support vectors, their coefficients
# and the solver's figures per pair.
#' @export
kc_repr_svm_model.kc_exact <- function(r, fits, pairs, control) {
  one <- control$type == "one-classification"
  n <- nrow(r$x)
  pair_names <- if (!one) rownames(pairs)
  per_pair <- function(field) stats::setNames(vapply(fits, `[[`, numeric(1), field), pair_names)
  eta <- matrix(0, n, nrow(pairs), dimnames = list(NULL, pair_names))
  for (m in seq_along(fits)) eta[fits[[m]]$rows, m] <- fits[[m]]$alpha
  index <- which(rowSums(eta) > 0)
  sign <- if (one) matrix(1, n, 1L) else vapply(seq_len(nrow(pairs)), function(m) {
    ifelse(as.integer(r$y) == pairs[m, "first"], 1, -1)
  }, numeric(length(r$y)))
  sign <- matrix(sign, nrow = n)
  converged <- vapply(fits, function(f) f$status == kc_c$smo_status[["converged"]], logical(1))
  if (!all(converged)) kc_svm_warn_max_iter(control$max_iter, if (!one) pair_names[!converged])
  list(index = index,
       SV = if (!kc_is_source(r$x)) r$x[index, , drop = FALSE],  # sources: kc_svm_sv()
       eta = eta[index, , drop = FALSE],
       coefs = (eta * sign)[index, , drop = FALSE],
       b = -per_pair("rho"),
       nSV = if (one) length(index) else
         stats::setNames(tabulate(r$y[index], nlevels(r$y)), levels(r$y)),
       n_at_bound = per_pair("at_bound"),
       objective = per_pair("objective"),
       iterations = per_pair("iterations"),
       kkt_violation = stats::setNames(pmax(0, per_pair("gap")), pair_names),
       converged = all(converged),
       # nu-SVC is the C-SVC of cost 1/r (r per pair, LIBSVM's scaling)
       cost = if (control$type == "C-classification") control$cost else if (!one) 1 / per_pair("r"))
}

kc_repr_svm_platt <- function(r, fits, pairs, C, control) UseMethod("kc_repr_svm_platt")

#' @export
kc_repr_svm_platt.kc_exact <- function(r, fits, pairs, C, control) {
  done <- attr(fits, "platt")  # kc_svm_pairs(): its folds, solved with the pairs
  if (!is.null(done$ab)) return(done$ab)
  rows <- lapply(fits, `[[`, "rows")
  fold <- if (is.null(done)) kc_platt_folds(rows) else done$fold
  kc_svm_platt(r$x, r$y, rows, pairs[, "first"], C, control, fold = fold)
}

# ---- the exact kernel's binary problems and class pairs ----------------------

# One binary SVM on the training rows `rows`, class `positive` as +1 (NULL:
# the one-class problem, every row +1), through the one solve entry
# (kc_svm_solve). The nu types start from LIBSVM's feasible point and
# nu-SVC's solution is scaled by 1/r, as LIBSVM's. test: rows of x held out
# (Platt's folds), whose decision values the solve gives where the problem
# is of the class pairs' kind (r$decision; else NULL).
kc_svm_binary <- function(x, y, rows, positive, C, control, label = "", test = NULL) {
  p <- kc_svm_binary_problem(x, y, rows, positive, C, control, label)
  alpha0 <- switch(control$type,
    "nu-classification" = kc_svm_start(p$C, p$y, control$nu * sum(p$C) / 2),
    "one-classification" = kc_svm_start(p$C, p$y, control$nu * sum(p$C)))
  # the store (the whole kernel or a cache) is the planner's (src/svm-plan.c);
  # every store gives the same model
  r <- kc_svm_solve(list(kind = "binary", x = p$x, y = p$y, C = p$C, alpha0 = alpha0,
                         test = if (!is.null(test) && !p$moved) x[test, , drop = FALSE]),
                    kc_svm_options(control))
  r$plan <- NULL
  kc_svm_binary_finish(r, p, p$C, control, label, sum(alpha0))
}

# One binary C-SVM (as kc_svm_binary's) at each of the bounds C (a list,
# one vector per cost, in increasing cost): a list of functions, one per
# cost, each giving its solution checked (kc_svm_binary_finish(): the
# caller asks for them in its order, so that the first error is that of
# the first cost it reaches). The costs that leave the same rows out are
# one problem of the solve entry (kind "costs": warm starts in increasing
# cost, one store of the kernel rows within the tuning budget,
# kc_tune_budget()); a cost that leaves other rows out starts afresh.
kc_svm_binary_costs <- function(x, y, rows, positive, C, control, label = "") {
  kept <- lapply(C, function(b) rows[b[rows] > 0])
  same <- vapply(seq_along(kept)[-1L], function(i) identical(kept[[i]], kept[[i - 1L]]),
                 logical(1))
  runs <- split(seq_along(C), cumsum(c(TRUE, !same)))
  unlist(lapply(runs, function(at) {
    p <- kc_svm_binary_problem(x, y, rows, positive, C[[at[1L]]], control, label)
    bounds <- matrix(unlist(lapply(C[at], `[`, p$rows)), length(p$rows))
    r <- kc_svm_solve(list(kind = "costs", x = p$x, y = p$y, C = bounds),
                      kc_svm_options(control, budget = kc_tune_budget()))
    lapply(seq_along(at), function(j) {
      force(j)
      function() {
        fit <- r$fits[[j]]
        fit$start <- NULL
        kc_svm_binary_finish(fit, p, bounds[, j], control, label, 0)
      }
    })
  }), recursive = FALSE, use.names = FALSE)
}

# A binary problem as the solver takes it: the rows of bound > 0, their
# classes (+1: `positive`; NULL: the one-class problem) and bounds, and the
# points, moved where the kernel's precision asks (moved: whether they
# are; centre and centred, how).
kc_svm_binary_problem <- function(x, y, rows, positive, C, control, label) {
  rows <- rows[C[rows] > 0]  # observations of weight 0 take no part
  yb <- if (is.null(positive)) rep(1L, length(rows)) else
    ifelse(as.integer(y[rows]) == positive, 1L, -1L)
  xb <- x[rows, , drop = FALSE]
  # The linear kernel's dual is the same for data moved by any c (y'a = 0),
  # but the float kernel cache is not: far from the origin x'y swamps the
  # differences that define the margin. There the data are centred, and
  # rho moved back by c'w. Data centred already (scale = TRUE) never are.
  # (The one-class dual has no y'a = 0: it is not moved; sparse rows never
  # are: they would fill.)
  centre <- NULL
  if (kc_kernel_info(control$kernel)$shift == "dual" && !is.null(positive) && is.matrix(xb)) {
    m <- colMeans(xb)
    spread <- sqrt(mean(rowSums(sweep(xb, 2L, m)^2)))
    if (sqrt(sum(m^2)) > spread) {
      centre <- m
      xb <- sweep(xb, 2L, m)
    }
  }
  centred <- kc_svm_precision(xb, control$kernel, label, one = is.null(positive))
  if (!is.null(centred)) xb <- centred$x
  list(rows = rows, y = yb, C = C[rows], x = xb, centre = centre, centred = centred,
       moved = !is.null(centre) || !is.null(centred))
}

# The solution r of the problem p (kc_svm_binary_problem(); Cb its bounds)
# as the model takes it: nu-SVC's scaled by 1/r (total: the sum of its
# start), rho moved back where the points were moved, then checked.
kc_svm_binary_finish <- function(r, p, Cb, control, label, total) {
  nu_svc <- control$type == "nu-classification"
  yb <- p$y
  xb <- p$x
  r$at_bound <- sum(r$alpha >= Cb)
  # r = 0: w = 0 (the classes' reduced convex hulls overlap), no margin, and
  # 1/r infinite. The float kernel cache gives the gradients, hence r, to
  # about 2^-24 sum(a) max k(x, x): an r within 100 times that is taken as 0.
  if (nu_svc && !(r$r > 100 * 2^-24 * total * max(abs(kc_kernel_diag(xb, control$kernel))))) {
    kc_abort(sprintf(paste0("`nu` = %s is too small for classes %s: their reduced convex hulls ",
                            "overlap in the %s kernel's feature space, so the nu-SVM has no ",
                            "margin (r = 0 at the precision of the kernel cache). Use a larger ",
                            "`nu`."),
                     format(control$nu), label, control$kernel$name),
             arg = "nu", class = "nu_infeasible")
  }
  if (nu_svc) {
    r$alpha <- r$alpha / r$r
    r$rho <- r$rho / r$r
    r$objective <- r$objective / r$r^2
  }
  centre <- p$centre
  centred <- p$centred
  if (!is.null(centre)) r$rho <- r$rho + sum(centre * colSums(r$alpha * yb * xb))
  if (!is.null(centred$c)) {  # the one-class problem moved by a constant
    r$rho <- r$rho + centred$c * sum(r$alpha)
    r$objective <- r$objective + centred$c * sum(r$alpha)^2 / 2
  } else if (!is.null(centred)) {
    r$rho <- r$rho + sum(r$alpha * yb * centred$u)
  }
  kc_svm_binary_check(r, p$rows, label, control)
}

# What every binary fit checks of its solution r (on the training rows
# `rows`), then r with its rows.
kc_svm_binary_check <- function(r, rows, label, control) {
  if (!is.finite(r$rho) || !is.finite(r$objective) || !all(is.finite(r$alpha))) {
    # never NaN or Inf from a model that says it converged
    kc_abort(sprintf(paste0("The SVM's solution%s is not finite numbers on this data (the ",
                            "%s kernel's values lose their precision). Scale the inputs ",
                            "(scale = TRUE) or use a smaller `degree` or `gamma`."),
                     if (nzchar(label)) paste0(" for classes ", label) else "",
                     control$kernel$name), arg = "x", class = "not_finite")
  }
  if (r$status == kc_c$smo_status[["unbounded"]]) {
    kc_abort(sprintf(paste0("With cost = Inf (hard margin) the classes %s are not separable in ",
                            "the feature space of the %s kernel (or only with a margin below ",
                            "1e-4 of the data's radius there). Use a finite `cost`."),
                     label, control$kernel$name), arg = "cost", class = "not_separable")
  }
  r$rows <- rows
  r
}

# The class pairs of a multi-class fit in one call of the solve entry
# (kc_svm_solve), side by side on the threads, on each class's kernel with
# itself computed once where the SVM's budget holds them (kc_svm_budget(),
# src/svm-pairs.c): where the planner (src/svm-plan.c) gives them one store
# (C-SVC on dense rows with a shift-invariant kernel, which kc_svm_binary
# neither centres nor moves, and a cachesize that holds the largest pair's
# kernel); the same solutions as kc_svm_binary's. NULL where it does not.
# With control$probability, Platt's folds (drawn as kc_svm_platt draws them)
# are solved in the same call from sub-blocks of each pair's kernel block:
# the fits carry attr "platt", list(fold, ab = the 2 x pairs A and B, or NULL
# where a fold's solution was not finite or unbounded: kc_svm_platt() then
# refits those folds alone, to give its error).
kc_svm_pairs <- function(x, y, problems, pairs, C, control) {
  probs <- lapply(seq_len(nrow(pairs)), function(m) {
    rows <- problems[[m]][C[problems[[m]]] > 0]
    list(rows = rows, y = ifelse(as.integer(y[rows]) == pairs[m, "first"], 1L, -1L),
         C = C[rows])
  })
  problem <- list(kind = "pairs", x = x, pairs = probs)
  options <- kc_svm_options(control, budget = kc_svm_budget())
  if (kc_svm_plan(problem, options)$store != "pairs") return(NULL)
  platt <- isTRUE(control$probability)
  if (platt) {
    fold <- kc_platt_folds(lapply(probs, `[[`, "rows"))
    for (m in seq_along(probs)) problem$pairs[[m]]$fold <- fold[[m]]
  }
  out <- kc_svm_solve(problem, options)
  fits <- lapply(seq_along(probs), function(m) {
    r <- out$fits[[m]]
    r$at_bound <- sum(r$alpha >= probs[[m]]$C)
    r$dec <- r$fold_bad <- NULL
    kc_svm_binary_check(r, probs[[m]]$rows, rownames(pairs)[m], control)
  })
  if (platt) {
    bad <- any(vapply(out$fits, `[[`, logical(1), "fold_bad"))
    attr(fits, "platt") <- list(fold = fold, ab = if (!bad) vapply(seq_along(probs), function(m) {
      kc_platt_fit(out$fits[[m]]$dec, probs[[m]]$y > 0)
    }, numeric(2)))
  }
  fits
}

# LIBSVM's feasible start for the nu types: within each class (y), a_i up
# to its bound in row order until the class's a sum to `total`.
kc_svm_start <- function(bound, y, total) {
  a <- numeric(length(bound))
  for (s in unique(y)) {
    left <- total
    for (i in which(y == s)) {
      if (left <= 0) break
      a[i] <- min(bound[i], left)
      left <- left - a[i]
    }
  }
  a
}

# ---- the one solve entry -------------------------------------------------------

# Every SVM solve goes through one .Call (src/ffi-svm.c): `problems` a
# named list of one kind ("binary": one binary problem, optionally with
# held-out rows; "costs": one binary problem at several costs, solved as a
# path of warm starts on one kept store; "pairs": the class pairs of one fit,
# optionally with Platt's folds; "path": the costs of kernel settings over
# the folds of a cross-validation), `options` a named list that C reads by
# name. Which store holds the kernel rows is the C planner's
# (src/svm-plan.c); kc_svm_plan() shows its plan without solving.
kc_svm_solve <- function(problems, options) .Call(ffi_svm_solve, problems, options)

kc_svm_plan <- function(problems, options) .Call(ffi_svm_plan, problems, options)

# The options of a binary, costs or pairs solve from kernel_svm()'s
# control: budget, the bytes the pairs' shared blocks (kc_svm_budget()) or
# a cost path's kept store (kc_tune_budget()) may take.
kc_svm_options <- function(control, budget = NULL) {
  list(kernel = kc_kernel_code(control$kernel), type = control$type,
       tolerance = control$tolerance, max_iter = control$max_iter,
       cachesize = control$cachesize, shrinking = control$shrinking, threads = kc_threads(),
       budget = budget)
}
