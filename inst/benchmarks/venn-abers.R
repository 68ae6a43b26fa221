# Venn-Abers probabilities against Platt and isotonic recalibration, on data
# sets that CRAN packages ship (datasets, MASS, mlbench), for
# kernel_svm(probability = TRUE) (its pairwise Platt sigmoids, coupled):
#   each of `reps` random splits, stratified by class: 50% fit, 25%
#   calibration, 25% test. On the test rows, the log-loss (probabilities
#   below 1e-15 taken as 1e-15, as kernel_cv()'s) and the Brier score (sum
#   over classes) of
#     svm       the model's own probabilities
#     platt     recalibrate(method = "platt") on the calibration rows
#     isotonic  recalibrate(method = "isotonic") on the calibration rows
#     ivap      venn_abers() on the calibration rows (inductive)
#     cvap      venn_abers(cv = ) of a 5-fold kernel_cv() of the fit and
#               calibration rows together, the model refitted on them (cross)
#   The table gives the mean over the splits and, in brackets, its standard
#   error.
#
#   Rscript inst/benchmarks/venn-abers.R               (about a minute on 2 cores)
#   Rscript inst/benchmarks/venn-abers.R --reps 5
#   KERNCLASS_LIB=<lib> picks the library kernclass is loaded from.

lib <- Sys.getenv("KERNCLASS_LIB")
if (nzchar(lib)) .libPaths(c(lib, .libPaths()))
suppressPackageStartupMessages(library(kernclass))
args <- commandArgs(trailingOnly = TRUE)
i <- match("--reps", args)
reps <- if (is.na(i)) 20L else as.integer(args[i + 1L])

# mlbench's data sets, each named in its own data() call (tools/check-data.R
# reads them); NULL without mlbench
has_mlbench <- requireNamespace("mlbench", quietly = TRUE)
datasets <- list(
  iris = list(x = iris[, 1:4], y = iris$Species),
  Pima = local({
    d <- rbind(MASS::Pima.tr, MASS::Pima.te)
    list(x = d[, 1:7], y = d$type)
  }),
  Sonar = local({
    d <- if (has_mlbench) {
      utils::data("Sonar", package = "mlbench", envir = e <- new.env())
      e$Sonar
    }
    if (!is.null(d)) list(x = d[, 1:60], y = d$Class)
  }),
  Ionosphere = local({
    d <- if (has_mlbench) {
      utils::data("Ionosphere", package = "mlbench", envir = e <- new.env())
      e$Ionosphere
    }  # V2 is constant, V1 a factor 0/1
    if (!is.null(d)) list(x = data.frame(V1 = as.numeric(as.character(d$V1)), d[, 3:34]),
                          y = d$Class)
  }),
  Glass = local({
    d <- if (has_mlbench) {
      utils::data("Glass", package = "mlbench", envir = e <- new.env())
      e$Glass
    }
    if (!is.null(d)) list(x = d[, 1:9], y = droplevels(d$Type))
  }),
  Vehicle = local({
    d <- if (has_mlbench) {
      utils::data("Vehicle", package = "mlbench", envir = e <- new.env())
      e$Vehicle
    }
    if (!is.null(d)) list(x = d[, 1:18], y = d$Class)
  })
)
datasets <- Filter(Negate(is.null), datasets)

scores <- function(p, y) {
  onehot <- matrix(0, length(y), nlevels(y))
  onehot[cbind(seq_along(y), as.integer(y))] <- 1
  c(logloss = -mean(log(pmax(p[cbind(seq_along(y), as.integer(y))], 1e-15))),
    brier = mean(rowSums((p - onehot)^2)))
}

# a stratified split of the rows: 2 : 1 : 1
split_rows <- function(y) {
  part <- integer(length(y))
  for (lv in levels(y)) {
    r <- which(y == lv)
    r <- r[sample.int(length(r))]
    part[r] <- rep_len(c(1L, 1L, 2L, 3L), length(r))
  }
  part
}

one_split <- function(d) {
  part <- split_rows(d$y)
  fr <- part == 1L; ca <- part == 2L; te <- part == 3L
  fit <- kernel_svm(d$x[fr, ], d$y[fr], probability = TRUE)
  xt <- d$x[te, ]; yt <- d$y[te]
  out <- list(
    svm = scores(predict(fit, xt, type = "prob"), yt),
    platt = scores(predict(recalibrate(fit, d$x[ca, ], d$y[ca], method = "platt"), xt,
                           type = "prob"), yt),
    isotonic = scores(predict(recalibrate(fit, d$x[ca, ], d$y[ca], method = "isotonic"), xt,
                              type = "prob"), yt),
    ivap = scores(predict(venn_abers(fit, d$x[ca, ], d$y[ca]), xt, type = "prob"), yt))
  both <- fr | ca
  cv <- kernel_cv(kernel_svm, d$x[both, ], d$y[both], folds = 5, metric = "logloss")
  full <- kernel_svm(d$x[both, ], d$y[both], probability = TRUE)
  out$cvap <- scores(predict(venn_abers(full, cv = cv), xt, type = "prob"), yt)
  out
}

set.seed(20261207)
t0 <- proc.time()
rows <- list()
for (nm in names(datasets)) {
  d <- datasets[[nm]]
  res <- replicate(reps, one_split(d), simplify = FALSE)
  for (m in names(res[[1]])) {
    v <- sapply(res, `[[`, m)
    rows[[length(rows) + 1L]] <- data.frame(
      data = sprintf("%s (%d x %d, %d classes)", nm, nrow(d$x), ncol(d$x), nlevels(d$y)),
      method = m,
      logloss = sprintf("%.4f (%.4f)", mean(v["logloss", ]), sd(v["logloss", ]) / sqrt(reps)),
      brier = sprintf("%.4f (%.4f)", mean(v["brier", ]), sd(v["brier", ]) / sqrt(reps)))
  }
}
tab <- do.call(rbind, rows)
cat(sprintf("kernel_svm(probability = TRUE), %d stratified splits 50/25/25; test-row means (s.e.)\n\n",
            reps))
print(tab, row.names = FALSE, right = FALSE)
cat(sprintf("\n%.0f s of CPU\n", sum((proc.time() - t0)[c(1, 2)])))
