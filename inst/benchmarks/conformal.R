# Trustworthy predictions on real data from CRAN packages (datasets, MASS, mlbench):
#   rule      the class of highest probability against the one-vs-one vote of
#             kernel_svm(probability = TRUE): 10-fold cross-validated accuracy
#             of both rules on the same fits, and how often they disagree;
#   coverage  conformal prediction sets of kernel_svm(probability = TRUE):
#             split conformal (random 50% fit / 25% calibration / 25% test
#             splits), cross-validated calibration (kernel_cv() of the 75%
#             fit rows, 5 folds, tested on the other 25%) and CV+
#             (conformal(method = "cv+", folds = 5) of the model fitted on
#             the same 75%: five fold models, each test row scored by all),
#             at levels 0.8, 0.9 and 0.95: mean coverage and mean set size
#             over the splits, and the share of splits whose coverage fell
#             below the level;
#   cost      predict() of 20,000 rows as classes, probabilities and sets;
#   diagram   the reliability diagram of kernel_svm(probability = TRUE)'s
#             5-fold out-of-fold probabilities on Vehicle, written to
#             man/figures/calibration-vehicle.png (README).
#
#   Rscript inst/benchmarks/conformal.R              (about 10 minutes on 2 cores)
#   Rscript inst/benchmarks/conformal.R --only coverage --reps 20   (about 3 minutes)
#   Rscript inst/benchmarks/conformal.R --reps 5     (fewer random splits)
#   Rscript inst/benchmarks/conformal.R --only rule,coverage,cost
#   Rscript inst/benchmarks/conformal.R --only coverage --coverage-data iris,Vowel
#       (the data sets of the coverage table; any of those below)
#   Rscript inst/benchmarks/conformal.R --smoke      (seconds: iris, one split, no figure kept)
#   Rscript inst/benchmarks/conformal.R --help       (every flag, with its defaults)
# --lib LIB (or KERNCLASS_LIB=LIB) picks the library kernclass is loaded from.

script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
source(file.path(if (length(script)) dirname(normalizePath(script[1])) else "inst/benchmarks",
                 "common.R"))
all_data <- c("iris", "Vehicle", "Pima", "Glass", "Sonar", "Vowel")
o <- bench_script(list(
  bench_flag("--only", "chr", full = c("rule", "coverage", "cost", "diagram"),
             help = "the parts to run, of rule, coverage, cost, diagram"),
  bench_flag("--reps", "int", full = 20, quick = 5, smoke = 1,
             help = "random splits of the coverage table"),
  bench_flag("--data", "chr", full = all_data, smoke = "iris",
             help = "the data sets of the rule table"),
  bench_flag("--coverage-data", "chr", full = c("iris", "Vehicle", "Pima", "Glass"),
             smoke = "iris", help = "the data sets of the coverage table"),
  bench_flag("--cost-n", "int", full = 20000, smoke = 2000,
             help = "the rows predict() scores in the cost table"),
  bench_flag("--diagram-data", "chr", full = "Vehicle", smoke = "iris",
             help = "the data set of the reliability diagram"),
  bench_flag("--diagram-file", "chr", full = "man/figures/calibration-vehicle.png",
             smoke = file.path(tempdir(), "calibration.png"),
             help = "the reliability diagram's file (the README's)")),
  usage = "Rscript inst/benchmarks/conformal.R [flags]")
bench_load_kernclass(o$lib)
reps <- o$reps
only <- o$only
bad <- setdiff(only, c("rule", "coverage", "cost", "diagram"))
if (length(bad)) stop("--only takes rule, coverage, cost, diagram, not ", bad[1], call. = FALSE)

# each data set as inputs x (numeric columns), classes y and its package
datasets <- bench_datasets(unique(c(o$data, o$coverage_data, o$diagram_data)))
source_of <- vapply(datasets, `[[`, "", "source")

# stratified folds, as kernel_cv()'s
folds_of <- function(y, k) {
  f <- integer(length(y))
  for (c in levels(y)) {
    i <- which(y == c)
    f[i] <- sample(rep_len(seq_len(k), length(i)))
  }
  f
}

cat(sprintf("kernclass %s, R %s, %s; load average at start %s\n\n",
            utils::packageVersion("kernclass"), getRversion(), Sys.time(),
            paste(readLines("/proc/loadavg", warn = FALSE), collapse = "")))

if ("rule" %in% only) {
  cat("## Class rule: highest probability against the one-vs-one vote\n\n")
  cat("kernel_svm(probability = TRUE) and kernel_bayes() at their defaults, 10-fold cross-validation (the same fits for both rules).\n\n")
  cat("| fitter | data (package) | n | classes | accuracy, rule = \"prob\" | accuracy, rule = \"vote\" | difference (se) | rows where they differ |\n")
  cat("|:--|:--|--:|--:|--:|--:|--:|--:|\n")
  fitters <- list(kernel_svm = function(x, y) kernel_svm(x, y, probability = TRUE),
                  kernel_bayes = function(x, y) kernel_bayes(x, y))
  for (fn in names(fitters)) for (nm in intersect(o$data, names(datasets))) {
    d <- datasets[[nm]]
    set.seed(1)
    f <- folds_of(d$y, 10)
    prob <- vote <- factor(rep(NA, length(d$y)), levels(d$y))
    for (k in 1:10) {
      te <- f == k
      m <- fitters[[fn]](d$x[!te, ], d$y[!te])
      prob[te] <- predict(m, d$x[te, ], rule = "prob")
      vote[te] <- predict(m, d$x[te, ], rule = "vote")
    }
    diff <- (prob == d$y) - (vote == d$y)
    cat(sprintf("| %s | %s (%s) | %d | %d | %.2f%% | %.2f%% | %+.2f (%.2f) pp | %.1f%% |\n", fn, nm,
                source_of[[nm]], length(d$y), nlevels(d$y), 100 * mean(prob == d$y),
                100 * mean(vote == d$y), 100 * mean(diff), 100 * sd(diff) / sqrt(length(diff)),
                100 * mean(prob != vote)))
  }
  cat("\n")
}

if ("coverage" %in% only) {
  levels_ <- c(0.8, 0.9, 0.95)
  kinds <- c("split", "cv", "cv+")
  cat(sprintf("## Conformal prediction sets: coverage and mean set size over %d random splits\n\n", reps))
  cat("kernel_svm(probability = TRUE) at its defaults, score 1 - p(y|x). Split: 50% fit, 25% calibration, 25% test; cross-validated: conformal(fit, cv = kernel_cv(..., folds = 5, metric = \"brier\")) on the 75% fit rows, tested on the other 25%; CV+: conformal(fit, method = \"cv+\", folds = 5) of the same model on the same 75% (its guarantee is 1 - 2 alpha less a small term, the split form's 1 - alpha). Coverage: the mean over the splits of the test rows' coverage (in brackets: the share of splits below the level); size: the mean set size.\n\n")
  cat("| data | calibration |", paste(sprintf("coverage %g | size %g", levels_, levels_), collapse = " | "), "|\n")
  cat("|:--|:--|", paste(rep("--:|--:", length(levels_)), collapse = "|"), "|\n")
  for (nm in intersect(o$coverage_data, names(datasets))) {
    d <- datasets[[nm]]
    n <- length(d$y)
    res <- stats::setNames(vector("list", length(kinds)), kinds)
    set.seed(2)
    for (r in seq_len(reps)) {
      perm <- sample(n)
      fit_rows <- perm[1:floor(n / 2)]
      cal_rows <- perm[(floor(n / 2) + 1):floor(3 * n / 4)]
      test <- perm[(floor(3 * n / 4) + 1):n]
      both <- c(fit_rows, cal_rows)
      xb <- d$x[both, ]
      yb <- droplevels(d$y[both])
      if (!identical(levels(yb), levels(d$y))) next
      m <- kernel_svm(d$x[fit_rows, ], d$y[fit_rows], probability = TRUE)
      full <- kernel_svm(xb, yb, probability = TRUE)
      cv <- kernel_cv(kernel_svm, xb, yb, folds = 5, metric = "brier", probability = TRUE)
      models <- list(split = conformal(m, d$x[cal_rows, ], d$y[cal_rows]),
                     cv = conformal(full, cv = cv),
                     "cv+" = conformal(full, method = "cv+", folds = 5))
      for (kind in kinds) {
        row <- unlist(lapply(levels_, function(l) {
          s <- summary(predict(models[[kind]], d$x[test, ], type = "set", level = l), y = d$y[test])
          c(s$coverage, s$size)
        }))
        res[[kind]] <- rbind(res[[kind]], row)
      }
    }
    for (kind in kinds) {
      cover <- res[[kind]][, c(TRUE, FALSE), drop = FALSE]
      v <- colMeans(res[[kind]])
      below <- colMeans(cover < rep(levels_, each = nrow(cover)))
      cat(sprintf("| %s (%s, n = %d, %d classes) | %s | %s |\n", nm, source_of[[nm]], n,
                  nlevels(d$y), kind, paste(sprintf("%.3f (%.2f) | %.2f", v[c(TRUE, FALSE)], below,
                                                    v[c(FALSE, TRUE)]), collapse = " | ")))
    }
  }
  cat("\n")
}

if ("cost" %in% only) {
  cat("## Cost of sets beside predict()\n\n")
  set.seed(3)
  k <- size(1000, 1000, 200)  # training and calibration rows each
  n <- o$cost_n + 2 * k
  y <- factor(sample(letters[1:4], n, replace = TRUE))
  x <- matrix(rnorm(5 * n), n) + 0.8 * as.integer(y)
  m <- kernel_svm(x[1:k, ], y[1:k], probability = TRUE)
  cf <- conformal(m, x[k + 1:k, ], y[k + 1:k])
  new <- x[(2 * k + 1):n, ]
  time <- function(type) {
    median(replicate(5, system.time(predict(cf, new, type = type))[["elapsed"]]))
  }
  t <- vapply(c("class", "prob", "set"), time, 0)
  cat(sprintf("kernel_svm(probability = TRUE), %s training rows, 4 classes, 5 features; predict() of %d rows, median of 5 (s):\n\n",
              format(k, big.mark = ","), nrow(new)))
  cat("| type = \"class\" | type = \"prob\" | type = \"set\" |\n|--:|--:|--:|\n")
  cat(sprintf("| %.3f | %.3f | %.3f |\n\n", t[1], t[2], t[3]))
}

if ("diagram" %in% only) {
  nm <- o$diagram_data
  d <- datasets[[nm]]
  set.seed(4)
  cv <- kernel_cv(kernel_svm, d$x, d$y, folds = 5, metric = "brier")
  cal <- calibration_curve(cv, bins = 10)
  dir.create(dirname(o$diagram_file), showWarnings = FALSE, recursive = TRUE)
  grDevices::png(o$diagram_file, width = 560, height = 480, res = 96)
  plot(cal, main = sprintf("%s (%s): kernel_svm, 5-fold", nm, source_of[[nm]]))
  grDevices::dev.off()
  cat(sprintf("## Reliability diagram\n\n%s, 5-fold: Brier score %.4f; %s\n\n", nm,
              attr(cal, "brier"), o$diagram_file))
}
