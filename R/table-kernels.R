# The kernel table: one row a kernel, every fact about a kernel in its row;
# the rest of the package reads it and never switches on a kernel's name.
# A row's position is the kernel's code in the C engine (its enum
# kc_kernel_type in src/kernel.h, plus one): adding a kernel is one row
# here and one case in kernel_def_of() (src/kernel.c), and
# tests/testthat/test-kernel-table.R fails until both are there.
#
# name, aliases: the name and the names people bring from e1071 and kernlab.
# scales: what gamma multiplies: "squared distance", "distance" (then the C
#   engine computes the kernel from distances), "inner product", or
#   "nothing" for a kernel without gamma.
# median: the quantity whose median over the pairs of rows is 1 / gamma
#   under the median rule (?estimate_gamma): what gamma scales; for a kernel
#   without gamma, the value of "rbf" (stored, not used).
# density: whether k(., z) is a probability density up to a constant factor
#   (kernel_parzen's probabilities).
# label: the parameters print() shows.
# self: k(z, z) from q = z'z alone; q may be a bilinear form x'Wx that is
#   not a squared norm (kernel_bayes type 3).
# bound: a bound of |k(x, y)| over rows whose squared norms are at most sq
#   (Cauchy-Schwarz): where it is finite, so is every kernel value.
# shift: what moving every point by the same vector c does to the kernel
#   values: "invariant" (none change: kernels of the distance), "dual"
#   (k(x + c, y + c) = k(x, y) + u(x) + u(y) + const, which an SVM dual with
#   y'a = 0 absorbs, so the SVM may centre the data), or "none".
# plain: whether k(x, y) is the inner product x'y itself: the one row whose
#   code makes the engine return plain Gram matrices (kc_plain_code()).
# tags: caret's model tags the kernel adds (R/door-caret.R).
# frequencies: for a shift-invariant kernel, a p x m draw of its spectral
#   distribution (Bochner: k(x, y) = E cos(w'(x - y)) over these w), the
#   random Fourier features of random_fourier(); NULL for the others.
kc_kernel_row <- function(name, aliases, scales, density, label, self, bound,
                          median = scales, shift = "none", plain = FALSE, tags = character(),
                          frequencies = NULL) {
  list(name = name, aliases = aliases, scales = scales, median = median, density = density,
       label = label, self = self, bound = bound, shift = shift, plain = plain, tags = tags,
       frequencies = frequencies)
}

kc_kernels <- local({
  one <- function(q, k) rep(1, length(q))
  rows <- list(
    kc_kernel_row("linear", "vanilla", "nothing", FALSE, character(),
                  self = function(q, k) q, bound = function(sq, k) sq,
                  median = "squared distance", shift = "dual", plain = TRUE),
    kc_kernel_row("polynomial", "poly", "inner product", FALSE, c("gamma", "degree", "coef0"),
                  self = function(q, k) (k$gamma * q + k$coef0)^k$degree,
                  bound = function(sq, k) (k$gamma * sq + abs(k$coef0))^k$degree),
    kc_kernel_row("rbf", c("radial", "gaussian"), "squared distance", TRUE, "gamma",
                  self = one, bound = function(sq, k) 1, shift = "invariant",
                  tags = "Radial Basis Function",
                  # Gaussian, N(0, 2 gamma I)
                  frequencies = function(p, m, gamma) {
                    matrix(stats::rnorm(p * m), p, m) * sqrt(2 * gamma)
                  }),
    kc_kernel_row("laplace", "laplacian", "distance", TRUE, "gamma",
                  self = one, bound = function(sq, k) 1, shift = "invariant",
                  # multivariate Cauchy of scale gamma (the Euclidean norm's
                  # kernel): a Gaussian vector over one |N(0, 1)| per column
                  frequencies = function(p, m, gamma) {
                    W <- matrix(stats::rnorm(p * m), p, m)
                    W * rep(gamma / abs(stats::rnorm(m)), each = p)
                  }),
    kc_kernel_row("sigmoid", "tanh", "inner product", FALSE, c("gamma", "coef0"),
                  self = function(q, k) tanh(k$gamma * q + k$coef0),
                  bound = function(sq, k) 1))
  names(rows) <- vapply(rows, `[[`, "", "name")
  rows
})

# Kernels given as data (R/input-sources.R): kernel = "precomputed" (kernel values)
# and "user" (an R function, or a kernlab kernel). They have no code of their
# own: the engine's tiles already hold their values, which pass through the
# plain kernel's identity (`engine`); k(z, z) is what their "norms" hold.
# given: what the call gave, in a message's words.
kc_kernel_sources <- lapply(list(
  c(kc_kernel_row("precomputed", character(), "nothing", FALSE, character(),
                  self = function(q, k) q, bound = function(sq, k) sq),
    given = "kernel values (kernel = \"precomputed\")"),
  c(kc_kernel_row("user", character(), "nothing", FALSE, character(),
                  self = function(q, k) q, bound = function(sq, k) sq),
    given = "a kernel function")),
  function(row) c(row, engine = names(Filter(function(r) r$plain, kc_kernels))))
names(kc_kernel_sources) <- c("precomputed", "user")

# Whether a row's kernel is computed from distances (in C too).
kc_row_uses_distance <- function(row) row$scales %in% c("squared distance", "distance")

# The engine's code for plain inner products x'y (the row with plain = TRUE),
# as kc_kernel_code() gives it: for Gram matrices and squared norms.
kc_plain_code <- function() {
  c(unname(which(vapply(kc_kernels, `[[`, NA, "plain"))), 1, 1, 0)
}

# The same kernel, x'y, as a kernel object (kc_gram(), kc_kmeanspp()).
kc_plain_kernel <- function() {
  list(name = names(Filter(function(r) r$plain, kc_kernels)), gamma = 1, degree = 1L, coef0 = 0)
}

# The names of the kernels that are densities (kernel_parzen's probabilities).
kc_density_kernels <- function() names(Filter(function(r) r$density, kc_kernels))

# Whether a row's kernel values are at most 1 in size for any points (its
# bound is 1 even for unbounded norms; the SVM's float cache relies on it).
kc_row_bounded <- function(row) {
  identical(row$bound(Inf, list(gamma = 1, degree = 3, coef0 = 1)), 1)
}

# The table's columns that C also knows, as a data frame: the code the C
# engine takes, and whether it computes the kernel from distances.
kc_kernel_table <- function() {
  data.frame(name = names(kc_kernels), code = seq_along(kc_kernels),
             distance = vapply(kc_kernels, kc_row_uses_distance, logical(1)),
             plain = vapply(kc_kernels, `[[`, logical(1), "plain"),
             bounded = vapply(kc_kernels, kc_row_bounded, logical(1)),
             row.names = NULL)
}

# A checked kernel name, aliases resolved.
kc_kernel_name <- function(kernel) {
  names <- names(kc_kernels)
  if (!is.character(kernel) || length(kernel) != 1L || is.na(kernel)) {
    kc_abort(sprintf("`kernel` must be one string, one of %s.", kc_enum(names)), arg = "kernel")
  }
  hit <- Filter(function(r) kernel %in% c(r$name, r$aliases), kc_kernels)
  if (!length(hit)) {
    kc_abort(sprintf('`kernel` must be one of %s; got "%s".', kc_enum(names), kernel),
             arg = "kernel")
  }
  hit[[1L]]$name
}

# The row of kernel k (a list with $name, as kc_kernel() builds).
kc_kernel_info <- function(k) {
  if (k$name %in% names(kc_kernel_sources)) kc_kernel_sources[[k$name]] else kc_kernels[[k$name]]
}

kc_kernel_is_density <- function(k) kc_kernel_info(k)$density

# k(z, z) from q = z'z (see self above).
kc_kernel_self <- function(q, k) kc_kernel_info(k)$self(q, k)

kc_kernel_label <- function(k) {
  params <- kc_kernel_info(k)$label
  values <- vapply(params, function(p) format(k[[p]], digits = 4), "")
  args <- paste(sprintf("%s = %s", params, values), collapse = ", ")
  if (nzchar(args) && identical(k$gamma_rule, "median")) {
    args <- paste(args, "by the median heuristic")
  }
  if (nzchar(args)) sprintf("%s (%s)", k$name, args) else k$name
}
