#' Threshold search for the offset of a decision function
#'
#' Places a threshold on one-dimensional scores so that it separates two
#' classes as consistently as possible, the way the kernelized Bayes
#' classifier of [kernel_bayes()] finds its offset \eqn{b} (the search of
#' Ruye Wang's notes "Kernelized Bayes classifier"). The scores
#' \eqn{x_n} are sorted together with their labels \eqn{y_n \in \{+1,-1\}}{y_n = +1 or -1};
#' for every split \eqn{k} (\eqn{k} scores below the threshold,
#' \eqn{N - k} above) the labelling consistency
#' \deqn{\Big|\sum_{n \le k} y_n\Big| + \Big|\sum_{n > k} y_n\Big|}{|S_k| + |S_N - S_k|}
#' is computed from the prefix sums \eqn{S_k = \sum_{n \le k} y_n}{S_k = y_1 + ... + y_k},
#' and the first split with the largest consistency gives
#' \eqn{b = -(x_k + x_{k+1})/2}{b = -(x_k + x_(k+1))/2}.
#'
#' The measure is the same whichever side of the threshold holds the
#' positive class, so the search also returns the orientation `sign`:
#' \eqn{+1} when calling the scores above the threshold positive classifies
#' at least as many training points correctly as the reverse
#' (\eqn{S_N - 2S_k \ge 0}{S_N - 2 S_k >= 0}), \eqn{-1} otherwise. A score is assigned to the
#' positive class when \eqn{\mathrm{sign}\,(x + b) > 0}{sign * (x + b) > 0}; with `sign = 1`
#' this is the plain rule \eqn{x + b > 0}. (Scores 1, 2, 3, 4 with labels
#' +, +, -, - give `sign = -1`.)
#'
#' Splits between equal scores are skipped: no threshold separates them, so
#' ties never split a group of equal scores, and the result does not depend
#' on the order of the input. If all scores are equal there is no split:
#' `split` is 0 and \eqn{b} is one unit past the common score, towards the
#' majority class (the positive class on a tie), so that every point gets
#' the majority class, and `sign` is 1. The search runs in C in \eqn{O(N)}
#' time: a stable least-significant-digit radix sort of the scores (at most
#' eight passes, one per byte of their 64-bit keys; a byte that all keys
#' share is skipped), then one pass over the prefix sums.
#'
#' @param score Numeric vector of finite scores (e.g. training decision
#'   values without offset).
#' @param y Labels, one per score: a factor with two levels (the first level
#'   is the positive class, as in every kernclass classifier), a logical
#'   vector (`TRUE` positive) or a numeric vector of `+1` and `-1`.
#' @return A list with `b`, the offset to add to the scores; `split`, the
#'   number of sorted scores below the threshold \eqn{-b}; and `consistency`,
#'   the largest value of the consistency measure (at most \eqn{N}, reached
#'   when the threshold separates the classes perfectly); and `sign`, the
#'   orientation (integer \eqn{+1}: positives above the threshold, \eqn{-1}:
#'   below), so that \eqn{\mathrm{sign}\,(x + b) > 0}{sign * (x + b) > 0} assigns the positive
#'   class.
#' @references Wang, R. Kernelized Bayes classifier. Lecture notes on
#'   pattern recognition, Harvey Mudd College.
#' @export
#' @examples
#' score <- c(-2.1, -1.3, -0.2, 0.4, 0.9, 1.7)
#' y <- c(-1, -1, 1, -1, 1, 1)
#' threshold_search(score, y)
#'
#' # the offset of a kernel nearest-means decision, placed by the search
#' two <- droplevels(subset(iris, Species != "setosa"))
#' fit <- kernel_means(Species ~ ., data = two, kernel = "linear")
#' threshold_search(predict(fit, type = "decision"), two$Species)
threshold_search <- function(score, y) {
  kc_require(missing(score), "score", "the scores")
  kc_require(missing(y), "y", "the labels")
  if (!is.numeric(score) || !length(score) ||
      sum(.Call(ffi_count_nonfinite, as.double(score))) > 0) {
    kc_abort("`score` must be a non-empty numeric vector of finite values.", arg = "score")
  }
  kc_search(score, kc_pm1(y, length(score)))
}

# Labels as integer +1 / -1: two-level factor (first level +1), logical, or
# numbers +1 / -1.
kc_pm1 <- function(y, n, arg = "y") {
  if (is.factor(y) && nlevels(y) != 2L) {
    kc_abort(sprintf("`%s` must have two levels (the first is the positive class); it has %d.",
                     arg, nlevels(y)), arg = arg)
  }
  if ((is.factor(y) || is.logical(y)) && anyNA(y)) {
    kc_abort(sprintf("`%s` has missing labels.", arg), arg = arg)
  }
  pm <- if (is.factor(y) || is.logical(y) || is.numeric(y)) .Call(ffi_pm1, y, is.factor(y))
  if (is.null(pm)) {
    kc_abort(sprintf(paste0("`%s` must be a two-level factor, a logical vector or numbers ",
                            "+1 and -1."), arg), arg = arg)
  }
  if (length(pm) != n) {
    kc_abort(sprintf("`%s` has length %d but `score` has %d; they must match.",
                     arg, length(pm), n), arg = arg)
  }
  pm
}

# The `threshold` argument of kernel_means() and kernel_parzen().
kc_match_threshold <- function(threshold, n_classes) {
  # the choices of kernel_means()'s signature (kernel_parzen()'s are the same)
  threshold <- kc_match_arg(threshold, kc_formal(kernel_means.default, "threshold"), "threshold")
  if (threshold == "search" && n_classes != 2L) {
    kc_abort(sprintf(paste0("threshold = \"search\" needs two classes; `y` has %d. ",
                            "kernel_bayes() searches a threshold per class pair."), n_classes),
             arg = "threshold")
  }
  threshold
}

# The search on scores and labels (a two-level factor or +1 / -1 integers).
kc_search <- function(score, y) {
  if (is.factor(y)) y <- .Call(ffi_pm1, y, TRUE)
  out <- .Call(ffi_threshold_search, as.double(score), y)
  list(b = out[1L], split = as.integer(out[2L]), consistency = out[3L], sign = as.integer(out[4L]))
}
