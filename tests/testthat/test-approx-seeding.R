# The k-means++ seeding of nystrom() and cells() (src/features.c): drawn by
# rejection from batches of kernel columns, each landmark must still be an
# exact k-means++ draw. Checked against the distribution written out in
# plain R, on a set small enough to list every ordered triple (about 1 s).

ns <- asNamespace("kernclass")

test_that("batched k-means++ draws ordered triples with k-means++'s probabilities", {
  set.seed(11)
  x <- matrix(rnorm(10), 5, 2)
  x[5, ] <- x[4, ] + 0.05  # two close rows: the second is rarely drawn after the first
  gamma <- 0.4
  K <- kernel_matrix(x, kernel = "rbf", gamma = gamma)
  D <- outer(diag(K), diag(K), "+") - 2 * K
  # k-means++: the first uniform, then each in proportion to the squared
  # distance to the nearest chosen
  triples <- expand.grid(a = 1:5, b = 1:5, c = 1:5)
  triples <- triples[triples$a != triples$b & triples$a != triples$c & triples$b != triples$c, ]
  p <- apply(triples, 1, function(t) {
    d2 <- D[t[1], ]
    pb <- d2[t[2]] / sum(d2)
    d2 <- pmin(d2, D[t[2], ])
    pc <- d2[t[3]] / sum(d2)
    pb * pc / 5
  })
  expect_equal(sum(p), 1)
  k <- ns$kc_kernel("rbf", gamma, 3, 0, x)
  spec <- ns$kc_kernel_code(k)
  draws <- 12000
  set.seed(12)
  got <- t(vapply(seq_len(draws), function(i) .Call(ns$ffi_kmeanspp, x, spec, 3L, 1L),
                  integer(3)))
  key <- function(m) paste(m[, 1], m[, 2], m[, 3])
  counts <- table(factor(key(got), levels = key(as.matrix(triples))))
  expect_equal(sum(counts), draws)  # only distinct rows, only listed triples
  test <- suppressWarnings(chisq.test(as.vector(counts), p = p))
  expect_gt(test$p.value, 1e-3)
  # a seeding of every row is a permutation; duplicates of chosen rows come
  # last, uniformly, once every distance left is 0
  dup <- rbind(x, x[1, ], x[1, ])
  set.seed(13)
  all <- .Call(ns$ffi_kmeanspp, dup, spec, 7L, 2L)
  expect_identical(sort(all), 1:7)
  expect_true(all(c(6L, 7L, 1L)[-1] %in% all))
  # the kernel columns come in batches: few more than the landmarks
  big <- matrix(rnorm(3000 * 3), 3000, 3)
  set.seed(14)
  s <- .Call(ns$ffi_kmeanspp, big, spec, 200L, 2L)
  expect_identical(length(unique(s)), 200L)
  expect_lt(attr(s, "columns"), 1.5 * 200)
})

test_that("the seeding subsample is 20 m rows, at most 10,000 (at least 2 m)", {
  x <- matrix(rnorm(12000 * 2), 12000, 2)
  k <- ns$kc_plain_kernel()
  for (m in c(50L, 600L)) {
    set.seed(15)
    idx <- ns$kc_kmeanspp(x, k, m)
    set.seed(15)
    sub <- sample.int(12000, min(20 * m, 10000))
    expect_true(all(idx %in% sub))
    expect_identical(length(unique(idx)), m)
  }
})
