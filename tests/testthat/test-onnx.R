# write_onnx() (R/door-onnx.R): its protocol buffer encoding, the models it
# refuses, and the files it writes run in a real ONNX runtime (npm's
# onnxruntime-node, through inst/onnx/onnx-run.js) on 1,000 new rows each,
# against predict(): the classes, the decision values and the probabilities.
# The runtime's tests skip, saying why, where node or onnxruntime-node is
# missing: `bash tools/setup.sh --deep` installs it into tools/node_modules,
# which they find from the source tree; elsewhere (R CMD check) NODE_PATH
# names the node_modules folder that holds it.

# ---- the encoding (expected bytes from protobuf's and IEEE 754's definitions)

test_that("varints are 7 bits a byte, least significant first, the high bit marking more", {
  expect_identical(kc_pb_varint(0), as.raw(0x00))
  expect_identical(kc_pb_varint(1), as.raw(0x01))
  expect_identical(kc_pb_varint(127), as.raw(0x7f))
  expect_identical(kc_pb_varint(128), as.raw(c(0x80, 0x01)))
  expect_identical(kc_pb_varint(300), as.raw(c(0xac, 0x02)))  # protobuf's own example
  expect_identical(kc_pb_varint(2^35), as.raw(c(0x80, 0x80, 0x80, 0x80, 0x80, 0x01)))
  expect_identical(kc_pb_varint(2^53 - 1),
                   as.raw(c(rep(0xff, 7), 0x0f)))  # 53 one bits: 7 x 7, then 4
  expect_error(kc_pb_varint(-1), "varint")
  expect_error(kc_pb_varint(1.5), "varint")
})

test_that("fields are a key (field * 8 + wire type) then the value", {
  expect_identical(kc_pb_int(1L, 150), as.raw(c(0x08, 0x96, 0x01)))  # protobuf's example
  expect_identical(kc_pb_string(2L, "testing"),
                   c(as.raw(c(0x12, 0x07)), charToRaw("testing")))
  # packed floats: one length-delimited field of little-endian IEEE 754
  # singles (1 = 0x3f800000, -2 = 0xc0000000, 0.5 = 0x3f000000)
  expect_identical(kc_pb_floats(7L, c(1, -2, 0.5)),
                   as.raw(c(0x3a, 0x0c, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0,
                            0x00, 0x00, 0x00, 0x3f)))
  expect_identical(kc_pb_packed_ints(8L, c(3, 270)), as.raw(c(0x42, 0x03, 0x03, 0x8e, 0x02)))
  expect_identical(kc_pb_float(2L, 1), as.raw(c(0x15, 0x00, 0x00, 0x80, 0x3f)))
  expect_identical(kc_pb_bytes(5L, raw(0)), as.raw(c(0x2a, 0x00)))
  # a string is its UTF-8 bytes
  expect_identical(kc_pb_string(1L, "\u00e9"), as.raw(c(0x0a, 0x02, 0xc3, 0xa9)))
})

test_that("the file is a ModelProto: IR version 7, the producer, then the graph", {
  set.seed(1)
  fit <- kernel_svm(Species ~ ., data = iris)
  path <- tempfile(fileext = ".onnx")
  expect_identical(write_onnx(fit, path), path)
  bytes <- readBin(path, "raw", file.size(path))
  expect_identical(bytes[1:2], as.raw(c(0x08, 0x07)))  # field 1 (ir_version), varint 7
  expect_identical(bytes[3:13], c(as.raw(c(0x12, 0x09)), charToRaw("kernclass")))
  # the support vectors' floats are all in it: 4 bytes each
  expect_gt(length(bytes), 4 * length(fit$SV))
})

# ---- what cannot be written ------------------------------------------------------

test_that("models ONNX's SVM operators cannot hold are errors naming the argument", {
  set.seed(2)
  x <- matrix(rnorm(80), 40, 2)
  y <- factor(rep(c("a", "b"), 20))
  path <- tempfile(fileext = ".onnx")
  bad <- function(expr, arg) {
    cnd <- expect_error(expr, class = "kernclass_input_error")
    expect_identical(cnd$arg, arg)
    cnd
  }
  cnd <- bad(write_onnx(kernel_means(x, y), path), "model")
  expect_s3_class(cnd, "kernclass_onnx_error")
  expect_match(conditionMessage(bad(write_onnx(kernel_svm(x, y, kernel = "laplace"), path),
                                    "model")), "laplace")
  expect_match(conditionMessage(bad(write_onnx(kernel_svm(x, y, approx = nystrom(m = 10)), path),
                                    "model")), "nystrom")
  fit <- kernel_svm(x, y)
  bad(write_onnx(fit, path, probability = TRUE), "probability")
  bad(write_onnx(fit, path, rule = "prob"), "rule")
  bad(write_onnx(fit, path, rule = "majority"), "rule")
  bad(write_onnx(fit, path, probability = NA), "probability")
  bad(write_onnx(fit, c(path, path)), "file")
  bad(write_onnx(fit, file.path(path, "no", "such", "folder.onnx")), "file")
  bad(write_onnx(kernel_svm(x, type = "one-classification"), path, probability = TRUE),
      "probability")
  expect_false(file.exists(path))
})

test_that("a recalibrated model is written with a warning: its maps are not in the file", {
  set.seed(3)
  x <- matrix(rnorm(400), 200, 2)
  y <- factor(ifelse(x[, 1] + rnorm(200) > 0, "a", "b"))
  fit <- recalibrate(kernel_svm(x[1:100, ], y[1:100], probability = TRUE), x[101:200, ],
                     y[101:200])
  expect_warning(write_onnx(fit, tempfile(fileext = ".onnx")), class = "kernclass_onnx_recalibration_warning")
})

# ---- in onnxruntime ---------------------------------------------------------

# The node_modules folder that holds onnxruntime-node (NODE_PATH's, else the
# source tree's tools/node_modules), if node is here and loads it; else NULL.
onnx_node_modules <- local({
  found <- NA
  function() {
    if (!identical(found, NA)) return(found)
    found <<- NULL
    node <- Sys.which("node")
    if (!nzchar(node)) return(NULL)
    dirs <- c(strsplit(Sys.getenv("NODE_PATH"), .Platform$path.sep, fixed = TRUE)[[1L]],
              file.path(test_path(), "..", "..", "tools", "node_modules"))
    dirs <- dirs[nzchar(dirs) & dir.exists(file.path(dirs, "onnxruntime-node"))]
    for (d in dirs) {
      d <- normalizePath(d)
      status <- suppressWarnings(system2(node, c("-e", shQuote("require('onnxruntime-node')")),
                                         env = paste0("NODE_PATH=", shQuote(d)),
                                         stdout = FALSE, stderr = FALSE))
      if (identical(status, 0L)) return(found <<- d)
    }
    NULL
  }
})

skip_if_no_onnxruntime <- function() {
  skip_if(!nzchar(Sys.which("node")),
          "node is not installed: the exported models cannot be run (bash tools/setup.sh --deep)")
  skip_if(is.null(onnx_node_modules()),
          paste("npm's onnxruntime-node is not installed (bash tools/setup.sh --deep puts it in",
                "tools/node_modules; elsewhere set NODE_PATH to the node_modules folder that",
                "holds it)"))
}

# The graph's outputs on the rows x (coded, unscaled): list(label, values),
# values a matrix with a column per output column.
onnx_predict <- function(model, x, ...) {
  dir <- tempfile("onnx")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  model_file <- file.path(dir, "model.onnx")
  write_onnx(model, model_file, ...)
  rows <- file.path(dir, "rows.csv")
  out <- file.path(dir, "out.csv")
  x <- as.matrix(x)
  utils::write.table(matrix(sprintf("%.17g", x), nrow(x)), rows, sep = ",", quote = FALSE,
                     row.names = FALSE, col.names = paste0("x", seq_len(ncol(x))))
  log <- system2(Sys.which("node"),
                 c(shQuote(system.file("onnx", "onnx-run.js", package = "kernclass")),
                   shQuote(model_file), shQuote(rows), shQuote(out)),
                 env = paste0("NODE_PATH=", shQuote(onnx_node_modules())),
                 stdout = TRUE, stderr = TRUE)
  expect_true(file.exists(out), info = paste(log, collapse = "\n"))
  res <- utils::read.csv(out, stringsAsFactors = FALSE)
  list(label = res[[1L]], values = unname(as.matrix(res[-1L])))
}

# k classes in 4 inputs of unequal scales and centres (so that the Scaler
# matters): n rows.
onnx_blobs <- function(n, k, seed) {
  set.seed(seed)
  y <- factor(sample(letters[seq_len(k)], n, TRUE), levels = letters[seq_len(k)])
  x <- matrix(rnorm(n * 4), n, 4) + 1.2 * outer(as.integer(y), 1:4, function(a, b) sin(a * b))
  x <- x * rep(c(1, 10, 0.1, 3), each = n) + rep(c(5, -2, 0, 1), each = n)
  colnames(x) <- paste0("v", 1:4)
  list(x = x, y = y)
}

# The float tolerance of a decision value: a few float roundings of each term
# of the expansion, |c_i k(x, x_i)| summed, and of the offset (in single
# precision the operator accumulates each term with a relative error of
# about 2^-24 of it, and the inputs and coefficients are rounded to floats).
onnx_tolerance <- function(model, x) {
  xs <- kc_apply_scaling(x, model$scaling)
  sv <- as.matrix(kc_svm_sv(model))
  k <- model$kernel
  K <- kernel_matrix(xs, sv, kernel = k$name, gamma = k$gamma, degree = k$degree,
                     coef0 = k$coef0)
  terms <- abs(K) %*% abs(model$coefs) + rep(abs(model$b), each = nrow(x))
  # the inner products' own rounding, amplified by the kernel's slope
  64 * 2^-24 * (terms + 1)
}

# LIBSVM's pairwise coupling (Wu, Lin and Weng 2004, method 2, solved as
# LIBSVM's multiclass_probability() does, by coordinate steps from p = 1/k
# until max_t |(Qp)_t - p'Qp| < 0.005 / k, at most max(100, k) sweeps), for
# one row of pairwise probabilities r (P(first), pairs in predict()'s order).
libsvm_coupling <- function(r, k) {
  R <- matrix(0, k, k)  # R[i, j] = P(i | i or j)
  m <- 0
  for (i in seq_len(k - 1L)) for (j in (i + 1L):k) {
    m <- m + 1
    R[i, j] <- r[m]
    R[j, i] <- 1 - r[m]
  }
  Q <- -t(R) * R  # Q[t, j] = -R[j, t] R[t, j]
  diag(Q) <- colSums(R^2)  # Q[t, t] = sum over j of R[j, t]^2
  p <- rep(1 / k, k)
  for (sweep in seq_len(max(100, k))) {
    Qp <- drop(Q %*% p)
    pQp <- sum(p * Qp)
    if (max(abs(Qp - pQp)) < 0.005 / k) break
    for (t in seq_len(k)) {
      step <- (pQp - Qp[t]) / Q[t, t]
      p[t] <- p[t] + step
      pQp <- (pQp + step * (step * Q[t, t] + 2 * Qp[t])) / (1 + step)^2
      Qp <- (Qp + step * Q[t, ]) / (1 + step)
      p <- p / (1 + step)
    }
  }
  p
}

# Platt's pairwise probabilities of the model's decision values, as the
# operator takes them (within [1e-7, 1 - 1e-7]).
platt_pairs <- function(model, dec) {
  ab <- kc_platt(model)
  dec <- matrix(dec, ncol = nrow(ab))
  r <- 1 / (1 + exp(dec * rep(ab[, "A"], each = nrow(dec)) + rep(ab[, "B"], each = nrow(dec))))
  pmin(pmax(r, 1e-7), 1 - 1e-7)
}

# The checks of one model on the rows x: every graph it can be written as.
check_onnx <- function(model, x, info) {
  lev <- model$levels
  dec <- predict(model, x, type = "decision")
  tol <- onnx_tolerance(model, x)
  vote <- as.character(predict(model, x, rule = "vote"))
  # rows whose classes float rounding cannot change: no decision value near 0
  clear <- rowSums(abs(matrix(dec, nrow(x))) <= tol) == 0
  expect_gt(mean(clear), 0.99, label = paste(info, "rows away from the boundaries"))

  # the decision values, and the operator's own label: the vote
  g <- onnx_predict(model, x, probability = FALSE)
  expect_equal(dim(g$values), c(nrow(x), if (length(lev) == 2L) 1L else ncol(dec)), info = info)
  expect_true(all(abs(g$values - matrix(dec, nrow(x))) <= tol), info = info)
  expect_identical(g$label[clear], vote[clear], info = info)
  if (is.null(kc_platt(model))) return(invisible())

  # the probabilities: two classes Platt's sigmoid itself, kernclass's to
  # float precision; more classes LIBSVM's iterative coupling of the
  # same sigmoids, within its stopping rule of kernclass's exact coupling
  prob <- predict(model, x, type = "prob")
  r <- platt_pairs(model, dec)
  libsvm <- if (length(lev) == 2L) cbind(r, 1 - r) else t(apply(r, 1L, libsvm_coupling,
                                                                 k = length(lev)))
  expect_equal(unname(libsvm), unname(prob), tolerance = if (length(lev) == 2L) 1e-12 else 0.01,
               info = info)
  p <- onnx_predict(model, x)  # rule = NULL: the model's default, "prob"
  expect_true(all(abs(p$values - libsvm) <= 1e-5), info = info)
  expect_true(all(abs(p$values - prob) <= if (length(lev) == 2L) 1e-5 else 0.01), info = info)
  # its label: the class of highest probability, predict()'s, except where
  # the two largest probabilities are within the couplings' difference
  top2 <- t(apply(prob, 1L, function(q) sort(q, decreasing = TRUE)[1:2]))
  apart <- top2[, 1L] - top2[, 2L] > if (length(lev) == 2L) 1e-5 else 0.01
  expect_identical(p$label[apart], as.character(predict(model, x))[apart], info = info)
  expect_identical(p$label, lev[max.col(p$values, ties.method = "first")], info = info)
  # rule = "vote" keeps the operator's label, the vote, with the probabilities
  v <- onnx_predict(model, x, rule = "vote")
  expect_identical(v$label[clear], vote[clear], info = info)
  expect_identical(v$values, p$values, info = info)
  invisible(sum(predict(model, x) != vote))  # the rows where the two rules differ
}

test_that("C-classification runs in onnxruntime as predict(): every kernel, two and three classes", {
  skip_if_no_onnxruntime()
  three <- onnx_blobs(300, 3, seed = 11)
  two <- onnx_blobs(300, 2, seed = 12)
  new3 <- onnx_blobs(1000, 3, seed = 13)$x
  new2 <- onnx_blobs(1000, 2, seed = 14)$x
  differ <- 0
  for (kernel in c("rbf", "linear", "polynomial", "sigmoid")) {
    args <- list(kernel = kernel, probability = TRUE)
    if (kernel == "polynomial") args <- c(args, degree = 3, coef0 = 1)
    if (kernel == "sigmoid") args$gamma <- 0.05
    for (d in list(list(three, new3), list(two, new2))) {
      set.seed(21)
      fit <- do.call(kernel_svm, c(list(d[[1]]$x, d[[1]]$y), args))
      differ <- differ + check_onnx(fit, d[[2]], sprintf("%s, %d classes", kernel, nlevels(fit$y)))
    }
  }
  # the two rules disagree on some rows: the vote is not the most probable class
  expect_gt(differ, 0)
  # without probabilities, and unscaled (no Scaler node)
  fit <- kernel_svm(three$x, three$y, scale = FALSE, gamma = 0.01, cost = 10)
  check_onnx(fit, new3, "unscaled rbf, no probabilities")
  # four classes, a formula fit and its data frame
  four <- onnx_blobs(400, 4, seed = 15)
  set.seed(22)
  fit <- kernel_svm(y ~ ., data = data.frame(four$x, y = four$y), probability = TRUE)
  check_onnx(fit, onnx_blobs(1000, 4, seed = 16)$x, "four classes, formula")
})

test_that("nu-classification and the one-class SVM run in onnxruntime as predict()", {
  skip_if_no_onnxruntime()
  three <- onnx_blobs(300, 3, seed = 31)
  new <- onnx_blobs(1000, 3, seed = 32)$x
  set.seed(33)
  fit <- kernel_svm(three$x, three$y, type = "nu-classification", nu = 0.3, probability = TRUE)
  check_onnx(fit, new, "nu-classification")
  # (the linear kernel unscaled: on centred inputs its one-class problem is
  # degenerate, every decision value about 0)
  for (kernel in c("rbf", "sigmoid", "linear")) {
    one <- kernel_svm(three$x, type = "one-classification", nu = 0.2, kernel = kernel,
                      scale = kernel != "linear")
    g <- onnx_predict(one, new)
    dec <- predict(one, new, type = "decision")
    tol <- drop(onnx_tolerance(one, new))
    expect_true(all(abs(g$values[, 1L] - dec) <= tol), info = kernel)
    clear <- abs(dec) > tol
    expect_gt(mean(clear), 0.99, label = paste(kernel, "rows away from the boundary"))
    expect_identical(g$label[clear], as.character(predict(one, new))[clear], info = kernel)
    expect_setequal(unique(g$label), c("inlier", "outlier"))
  }
})

test_that("a model on sparse rows is written with dense support vectors", {
  skip_if_no_onnxruntime()
  skip_if_not_installed("Matrix")
  d <- onnx_blobs(200, 3, seed = 41)
  # each column's smaller half zero
  sparsify <- function(x) x * (abs(x) > rep(apply(abs(x), 2L, stats::median), each = nrow(x)))
  x <- sparsify(d$x)
  new <- sparsify(onnx_blobs(1000, 3, seed = 42)$x)
  fit <- kernel_svm(methods::as(x, "CsparseMatrix"), d$y)
  check_onnx(fit, new, "sparse rows")
})
