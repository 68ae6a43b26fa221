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
#     ivap_pair venn_abers(multiclass = "pairwise") on the calibration rows:
#               an IVAP per class pair on its decision value, coupled
#     cvap_pair venn_abers(cv = , multiclass = "pairwise") on the same
#               kernel_cv() (each fold's model refitted for its decision values)
#   (with two classes, one pair: the pairwise rows calibrate the decision
#   value where ivap and cvap calibrate the Platt probability)
#   The table gives the mean over the splits and, in brackets, its standard
#   error, and for the Venn-Abers rows the mean width p1 - p0 of the Venn-Abers
#   interval of the test rows' true class. All methods see the same splits.
#   The figure (--figure, default vignettes/articles/figures/calibration-
#   methods.png, the calibration article's) draws the reliability diagram of
#   each method's test-row probabilities of one data set's first class
#   (--figure-data, default Pima), pooled over the splits, 10 bins.
#
#   Rscript inst/benchmarks/venn-abers.R               (about a minute on 2 cores)
#   Rscript inst/benchmarks/venn-abers.R --reps 5
#   Rscript inst/benchmarks/venn-abers.R --data iris,Pima,Glass,Vehicle --figure none
#   Rscript inst/benchmarks/venn-abers.R --smoke       (seconds: iris, one split, no figure)
#   Rscript inst/benchmarks/venn-abers.R --help        (every flag, with its defaults)
# --lib LIB (or KERNCLASS_LIB=LIB) picks the library kernclass is loaded from.

script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
source(file.path(if (length(script)) dirname(normalizePath(script[1])) else "inst/benchmarks",
                 "common.R"))
o <- bench_script(list(
  bench_flag("--reps", "int", full = 20, quick = 5, smoke = 1, help = "random splits per data set"),
  bench_flag("--data", "chr", full = c("iris", "Pima", "Sonar", "Ionosphere", "Glass", "Vehicle"),
             smoke = "iris", help = "the data sets (those installed; mlbench's need mlbench)"),
  bench_flag("--figure", "chr", full = "vignettes/articles/figures/calibration-methods.png",
             smoke = "none", help = "the reliability diagram's file, or none"),
  bench_flag("--figure-data", "chr", full = "Pima", smoke = "iris",
             help = "the data set of the figure")),
  usage = "Rscript inst/benchmarks/venn-abers.R [flags]")
bench_load_kernclass(o$lib)
reps <- o$reps
figure <- o$figure
figure_data <- o$figure_data
datasets <- lapply(bench_datasets(o$data), `[`, c("x", "y"))

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

# the test rows' probabilities of each method on one split, and the
# Venn-Abers intervals' width at the true class
one_split <- function(d) {
  part <- split_rows(d$y)
  fr <- part == 1L; ca <- part == 2L; te <- part == 3L
  fit <- kernel_svm(d$x[fr, ], d$y[fr], probability = TRUE)
  xt <- d$x[te, ]; yt <- d$y[te]
  va <- venn_abers(fit, d$x[ca, ], d$y[ca])
  both <- fr | ca
  cv <- kernel_cv(kernel_svm, d$x[both, ], d$y[both], folds = 5, metric = "logloss")
  full <- kernel_svm(d$x[both, ], d$y[both], probability = TRUE)
  cvap <- venn_abers(full, cv = cv)
  ivap_pair <- venn_abers(fit, d$x[ca, ], d$y[ca], multiclass = "pairwise")
  cvap_pair <- venn_abers(full, cv = cv, multiclass = "pairwise")
  width <- function(m) {
    iv <- predict(m, xt, type = "interval")
    k <- cbind(seq_along(yt), as.integer(yt))
    mean(iv[, , "upper"][k] - iv[, , "lower"][k])
  }
  list(y = yt, width = c(ivap = width(va), cvap = width(cvap), ivap_pair = width(ivap_pair),
                         cvap_pair = width(cvap_pair)),
       prob = list(svm = predict(fit, xt, type = "prob"),
                   platt = predict(recalibrate(fit, d$x[ca, ], d$y[ca], method = "platt"), xt,
                                   type = "prob"),
                   isotonic = predict(recalibrate(fit, d$x[ca, ], d$y[ca], method = "isotonic"), xt,
                                      type = "prob"),
                   ivap = predict(va, xt, type = "prob"),
                   cvap = predict(cvap, xt, type = "prob"),
                   ivap_pair = predict(ivap_pair, xt, type = "prob"),
                   cvap_pair = predict(cvap_pair, xt, type = "prob")))
}

set.seed(20261207)
t0 <- proc.time()
rows <- list()
pooled <- NULL
for (nm in names(datasets)) {
  d <- datasets[[nm]]
  res <- replicate(reps, one_split(d), simplify = FALSE)
  for (m in names(res[[1]]$prob)) {
    v <- sapply(res, function(r) scores(r$prob[[m]], r$y))
    w <- if (m %in% names(res[[1]]$width)) sapply(res, function(r) r$width[[m]])
    rows[[length(rows) + 1L]] <- data.frame(
      data = sprintf("%s (%d x %d, %d classes)", nm, nrow(d$x), ncol(d$x), nlevels(d$y)),
      method = m,
      logloss = sprintf("%.4f (%.4f)", mean(v["logloss", ]), sd(v["logloss", ]) / sqrt(reps)),
      brier = sprintf("%.4f (%.4f)", mean(v["brier", ]), sd(v["brier", ]) / sqrt(reps)),
      interval = if (is.null(w)) "" else sprintf("%.4f", mean(w)))
  }
  if (nm == figure_data) pooled <- res
}
tab <- do.call(rbind, rows)
cat(sprintf("kernel_svm(probability = TRUE), %d stratified splits 50/25/25; test-row means (s.e.); interval: mean Venn-Abers width (upper - lower) at the true class\n\n",
            reps))
cat("| data | method | log-loss | Brier | interval |\n|:--|:--|--:|--:|--:|\n")
cat(sprintf("| %s | %s | %s | %s | %s |\n", tab$data, tab$method, tab$logloss, tab$brier,
            tab$interval), sep = "")
cat(sprintf("\n%.0f s of CPU\n", sum((proc.time() - t0)[c(1, 2)])))

# the reliability diagrams of the methods on one data set, pooled over the
# splits, overlaid: one line per method, the first class against the rest
if (!identical(figure, "none") && !is.null(pooled)) {
  y <- unlist(lapply(pooled, function(r) as.character(r$y)))
  lv <- levels(pooled[[1]]$y)
  y <- factor(y, lv)
  methods <- names(pooled[[1]]$prob)
  cols <- c(svm = "black", platt = "#1b9e77", isotonic = "#d95f02", ivap = "#7570b3",
            cvap = "#e7298a", ivap_pair = "#66a61e", cvap_pair = "#e6ab02")
  dir.create(dirname(figure), showWarnings = FALSE, recursive = TRUE)
  grDevices::png(figure, width = 640, height = 520, res = 96)
  graphics::plot(c(0, 1), c(0, 1), type = "n", xlab = sprintf("Predicted probability of %s", lv[1]),
                 ylab = "Observed frequency",
                 main = sprintf("%s: kernel_svm's test-row probabilities, %d splits", figure_data, reps))
  graphics::abline(0, 1, lty = 2, col = "grey50")
  briers <- character()
  for (m in methods) {
    p <- do.call(rbind, lapply(pooled, function(r) r$prob[[m]]))
    cal <- kernclass:::kc_calibration_table(p, y, 10)
    cal <- cal[cal$class == lv[1], ]
    graphics::lines(cal$predicted, cal$observed, type = "b", pch = 19, col = cols[[m]])
    briers[m] <- sprintf("%s (Brier %.4f)", m, attr(kernclass:::kc_calibration_table(p, y, 10), "brier"))
  }
  graphics::legend("topleft", legend = briers[methods], col = cols[methods], lty = 1, pch = 19,
                   bty = "n")
  grDevices::dev.off()
  cat(sprintf("figure: %s (%s, first class %s, %d test rows pooled)\n", figure, figure_data, lv[1],
              length(y)))
}
