# scikit-learn as a peer (sourced by run.R): through a Python with sklearn
# (Debian's python3-sklearn, `bash tools/setup.sh --bench`), the scripts
# sklearn_*.py beside this file; every helper gives NULL where there is none.

# The dual objective 1/2 a'Qa - sum(a) of an RBF SVM from its coefficients.
dual_objective <- function(coefs, sv, gamma) {
  K <- kernel_matrix(sv, kernel = "rbf", gamma = gamma)
  0.5 * sum(coefs * (K %*% coefs)) - sum(abs(coefs))
}

find_sklearn <- function() {
  for (py in unique(c(Sys.which("python3"), "/usr/bin/python3"))) {
    if (nzchar(py) && file.exists(py) &&
        identical(suppressWarnings(system2(py, c("-c", shQuote("import sklearn")),
                                           stdout = FALSE, stderr = FALSE)), 0L)) return(py)
  }
  ""
}
python <- find_sklearn()
sklearn_version <- function() {
  if (!nzchar(python)) return("not found")
  system2(python, c("-c", shQuote("import sklearn; print(sklearn.__version__)")), stdout = TRUE)
}

# Runs one of the Python peers (a script beside this one) on tr and te,
# written for it into a temporary folder with y as +1 / -1; `read` takes what
# the script left in the folder. NULL when there is no Python with
# scikit-learn or the script fails.
sklearn_run <- function(script, tr, te, extra, read) {
  if (!nzchar(python)) return(NULL)
  dir <- tempfile("sklearn")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  writeBin(as.vector(tr$x), file.path(dir, "x.bin"), endian = "little")
  # two classes as +1 / -1, more as their codes 1, 2, ...
  y <- if (nlevels(tr$y) > 2L) as.integer(tr$y) else ifelse(tr$y == levels(tr$y)[1], 1, -1)
  writeBin(as.numeric(y), file.path(dir, "y.bin"), endian = "little")
  writeBin(as.vector(te$x), file.path(dir, "xt.bin"), endian = "little")
  path <- file.path(bench_dir, script)
  # (-B: no __pycache__ of sklearn_peer.py beside the scripts)
  status <- system2(python, c("-B", path, dir, nrow(tr$x), ncol(tr$x), nrow(te$x), extra))
  if (!identical(status, 0L)) return(NULL)
  read(dir)
}

# The +1 / -1 predictions a script wrote, as tr's labels.
sklearn_labels <- function(dir, tr) {
  pred <- scan(file.path(dir, "pred.txt"), quiet = TRUE)
  if (nlevels(tr$y) > 2L) return(levels(tr$y)[pred])
  ifelse(pred == 1, levels(tr$y)[1], levels(tr$y)[2])
}

# SVC on the same data: list(fit, predict (seconds), svs, objective,
# accuracy).
sklearn_svc <- function(tr, te, cost, gamma, tol = 1e-3) {
  sklearn_run("sklearn_svc.py", tr, te, c(cost, gamma, tol), function(dir) {
    times <- scan(file.path(dir, "times.txt"), quiet = TRUE)
    support <- scan(file.path(dir, "support.txt"), quiet = TRUE)
    coefs <- scan(file.path(dir, "coef.txt"), quiet = TRUE)
    list(fit = times[1], predict = times[2], iterations = times[3], svs = length(support),
         objective = if (nlevels(tr$y) == 2L)
           dual_objective(coefs, tr$x[support, , drop = FALSE], gamma) else NA,
         accuracy = mean(sklearn_labels(dir, tr) == te$y))
  })
}

# scikit-learn's Nystroem or RBFSampler features + LinearSVC (hinge loss) at
# the same m, cost and gamma as kernel_svm(approx = ...), on the data scaled
# as kernel_svm(scale = TRUE) scales them (as given where scale = FALSE):
# list(seconds (fit + predict, as Python measures them), accuracy).
sklearn_approx <- function(tr, te, features, m, cost, gamma, scale = TRUE) {
  if (scale) {
    sx <- base::scale(tr$x)
    tr <- list(x = sx, y = tr$y)
    te <- list(x = base::scale(te$x, attr(sx, "scaled:center"), attr(sx, "scaled:scale")), y = te$y)
  }
  sklearn_run("sklearn_approx.py", tr, te, c(features, m, cost, gamma), function(dir) {
    times <- scan(file.path(dir, "times.txt"), quiet = TRUE)
    list(seconds = sum(times), accuracy = mean(sklearn_labels(dir, tr) == te$y))
  })
}

# GridSearchCV over SVC (StandardScaler in a pipeline, so each fold scaled by
# its training rows, as e1071::svm(scale = TRUE) and kernel_tune(scale =
# TRUE) scale them) on the grid and the folds `fold`, n_jobs processes:
# list(seconds (the search with its refit, as Python measures it), cost,
# gamma, cv (its mean fold accuracy), accuracy on te).
sklearn_grid <- function(tr, te, fold, grid, n_jobs) {
  fold_file <- tempfile("folds")
  on.exit(unlink(fold_file))
  writeLines(as.character(fold), fold_file)
  sklearn_run("sklearn_grid.py", tr, te, c(fold_file, paste(grid$cost, collapse = ","),
                                            paste(grid$gamma, collapse = ","), n_jobs),
              function(dir) {
    times <- scan(file.path(dir, "times.txt"), quiet = TRUE)
    best <- scan(file.path(dir, "best.txt"), quiet = TRUE)
    list(seconds = times[1], cost = best[1], gamma = best[2], cv = best[3],
         accuracy = mean(sklearn_labels(dir, tr) == te$y))
  })
}
