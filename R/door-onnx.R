# ONNX's door: write_onnx() writes a kernel_svm() model as an ONNX model
# file, a graph of the ONNX-ML operators SVMClassifier (C- and
# nu-classification) or SVMRegressor (the one-class SVM), after a Scaler for
# a scaled model. The file is a protocol buffer (an onnx.ModelProto); the
# few messages it needs are encoded below (kc_pb_*: varints, length-
# delimited fields, packed floats), so that no package is needed.
#
# LIBSVM's one-vs-one layout, which SVMClassifier reads: the support vectors
# grouped by class (vectors_per_class, in level order), and a (k - 1) x nSV
# matrix of coefficients where the support vector of class c has its
# coefficient of the pair (c, o) in row o if o < c, else in row o - 1
# (1-based); rho per pair, added to the expansion (kernclass's b, -rho of
# LIBSVM); prob_a and prob_b per pair, with P(first) = 1 / (1 + exp(A f + B)).

#' Write a support vector machine as an ONNX model
#'
#' Writes a [kernel_svm()] model to an [ONNX](https://onnx.ai) file, which
#' ONNX runtimes (onnxruntime in Python, C++, C#, Java or JavaScript) run
#' without R. The graph holds the ONNX-ML operator `SVMClassifier` for
#' C- and nu-classification and `SVMRegressor` (its decision value) for the
#' one-class SVM: the support vectors, their coefficients in LIBSVM's
#' one-vs-one layout, the offsets, the kernel (`"linear"`, `"polynomial"`,
#' `"rbf"`, `"sigmoid"`) and, for a model fitted with `probability = TRUE`,
#' Platt's sigmoids, which the operator couples into class probabilities.
#' A model fitted with `scale = TRUE` starts with a `Scaler` node that
#' scales the inputs as [predict()][predict.kernclass] does. The file is
#' written by kernclass itself (a small protocol buffer encoder): no other
#' package is needed.
#'
#' @section The graph: One input, `"input"`: a float tensor of shape
#'   `[N, d]`, one row per point, whose `d` columns are the model's coded
#'   inputs `colnames(model$x)`, in that order, before scaling: for a model
#'   fitted on a numeric matrix or a data frame of numbers, those columns;
#'   for a formula with factors or transformations, the columns of its model
#'   matrix (the graph does not code factors). The names are also in the
#'   file's metadata (`"input_columns"`, separated by tabs). Two outputs:
#'   * `"label"`: a string tensor `[N]`, the predicted class (the one-class
#'     SVM: `"inlier"` where the decision value is positive, else
#'     `"outlier"`, as [predict()][predict.kernclass]);
#'   * `"probabilities"`, a float tensor `[N, k]` with a column per class
#'     (level order), where `probability` is `TRUE`; otherwise `"scores"`,
#'     the decision values of `predict(type = "decision")`: `[N]` for two
#'     classes (positive for the first level) and for the one-class SVM,
#'     `[N, k(k - 1)/2]` with a column per class pair (`"a/b"`, positive for
#'     `a`, in the order of `predict()`'s columns) for more classes.
#'
#' @section Which class, and the probabilities: `SVMClassifier`'s own label
#'   is LIBSVM's vote of the pairwise decision values (ties to the earlier
#'   level), even where it gives probabilities: `predict(rule = "vote")`. A
#'   model fitted with `probability = TRUE` predicts the class of highest
#'   probability by default (`rule = "prob"`, see [predict.kernclass()]):
#'   `rule = NULL` follows the model, and `rule = "prob"` adds an `ArgMax` of
#'   the probabilities and a `LabelEncoder` from its index to the class, so
#'   that `"label"` is the class of highest probability (ties to the first
#'   level).
#'
#'   With two classes the graph computes Platt's sigmoid itself, kept within
#'   \eqn{[10^{-7}, 1 - 10^{-7}]}{[1e-7, 1 - 1e-7]} as kernclass and LIBSVM
#'   keep it, so the probabilities are kernclass's to float precision (the
#'   operator would start its coupling from (1/2, 1/2) and stop within
#'   about \eqn{10^{-3}}{1e-3} of them). With more classes the operator
#'   couples the pairs' sigmoids by LIBSVM's iterative method (that of
#'   e1071), which stops where no class's optimality condition is violated
#'   by more than \eqn{0.005/k}, while kernclass solves the coupling exactly
#'   ([kernel_svm()]): the probabilities differ by up to a few
#'   \eqn{10^{-3}}{1e-3}, and the class of highest probability can differ
#'   where the two largest probabilities are that close.
#'
#' @section Precision: ONNX's SVM operators hold their numbers as floats:
#'   the decision values agree with `predict(type = "decision")` to about
#'   \eqn{10^{-6}} relative to the size of the kernel expansion's terms, the
#'   classes wherever no decision value is that close to 0.
#'
#' @section What cannot be written: Models on kernel approximations
#'   (`approx =` [nystrom()], [random_fourier()], [cells()]), the
#'   `"laplace"` kernel, which ONNX's operators lack, and models on kernel
#'   values or kernel functions (`kernel = "precomputed"`, a kernel
#'   function) are errors of class `"kernclass_onnx_error"`. A model on
#'   sparse rows is written with its support vectors dense (the graph's
#'   input is dense). The maps of [recalibrate()] are not written (a
#'   warning): the graph's probabilities are the model's own.
#'
#' @param model A [kernel_svm()] model.
#' @param file The path of the file to write (conventionally `.onnx`).
#' @param rule `"vote"`, `"prob"` or `NULL` (default): how `"label"` is
#'   chosen (see "Which class" below); `NULL` is the model's default rule (`"prob"` for a
#'   model with probabilities).
#' @param probability Whether the graph gives the class probabilities (a
#'   model fitted with `probability = TRUE`) or the decision values
#'   (`FALSE`). Default: the probabilities where the model has them.
#' @return `file`, invisibly.
#' @references ONNX-ML operators: SVMClassifier, SVMRegressor, Scaler,
#'   LabelEncoder (<https://onnx.ai/onnx/operators/>).
#' @export
#' @examples
#' fit <- kernel_svm(Species ~ ., data = iris, probability = TRUE)
#' path <- tempfile(fileext = ".onnx")
#' write_onnx(fit, path)
#' file.size(path)
#'
#' # the decision values instead of the probabilities, the label by vote
#' write_onnx(fit, path, rule = "vote", probability = FALSE)
#'
#' # to run it in Node.js with npm's onnxruntime-node: a CSV file of rows
#' # with a header (here iris's four columns); the runner writes the
#' # graph's outputs to out.csv
#' rows <- tempfile(fileext = ".csv")
#' write.csv(iris[1:5, 1:4], rows, row.names = FALSE)
#' runner <- system.file("onnx", "onnx-run.js", package = "kernclass")
#' cat("node", runner, path, rows, "out.csv\n")
#' unlink(c(path, rows))
write_onnx <- function(model, file, rule = NULL, probability = NULL) {
  kc_require(missing(model), "model", "a kernel_svm() model")
  kc_onnx_check_model(model)
  kc_require(missing(file), "file", "the path of the file to write")
  if (!is.character(file) || length(file) != 1L || is.na(file) || !nzchar(file)) {
    kc_abort("`file` must be one path, a string.", arg = "file")
  }
  if (!dir.exists(dirname(file))) {
    kc_abort(sprintf("`file`'s folder %s does not exist.", dirname(file)), arg = "file")
  }
  one <- inherits(model, "kernel_svm_oneclass")
  has_prob <- !is.null(kc_platt(model))
  if (is.null(probability)) probability <- has_prob
  kc_check_flag(probability, "probability")
  if (probability && !has_prob) {
    kc_abort(paste0("`probability` = TRUE needs a model fitted with probability = TRUE",
                    if (one) " (the one-class SVM has no probabilities)" else
                      ": use probability = FALSE, the graph's decision values", "."),
             arg = "probability", class = "onnx")
  }
  rule <- if (is.null(rule)) (if (probability) kc_default_rule(model) else "vote") else
    kc_check_rule(rule, model)
  if (rule == "prob" && !probability) {
    kc_abort(paste0("`rule` = \"prob\" chooses the class of highest probability: it needs ",
                    "probability = TRUE (and a model fitted with probability = TRUE); ",
                    "use rule = \"vote\"."),
             arg = "rule", class = "onnx")
  }
  if (probability && !is.null(model$recalibration)) {
    kc_warn(paste0("The model's recalibration maps (recalibrate()) are not written to the ",
                   "ONNX file: its probabilities are the model's Platt sigmoids, coupled."),
            class = "onnx_recalibration")
  }
  graph <- kc_onnx_graph(model, one, probability, rule)
  bytes <- kc_onnx_model(graph, model)
  con <- file(file, "wb")
  on.exit(close(con))
  writeBin(bytes, con)
  invisible(file)
}

# What write_onnx() can write: an exact kernel_svm() on points (dense or
# sparse rows) with a kernel of ONNX's SVM operators.
kc_onnx_check_model <- function(model) {
  if (!inherits(model, "kernel_svm")) {
    kc_abort("`model` must be a kernel_svm() model: write_onnx() writes support vector machines.",
             arg = "model", class = "onnx")
  }
  if (!kc_repr_exact_only(kc_repr(model))) {
    kc_abort(sprintf(paste0("`model` runs on %s: ONNX's SVM operators hold an exact kernel ",
                            "expansion. Fit without `approx` to write it."),
                     format(model$approx$spec)), arg = "model", class = "onnx")
  }
  kind <- kc_onnx_kernels[model$kernel$name]
  if (is.na(kind)) {
    kc_abort(sprintf(paste0("`model` has the %s kernel, which ONNX's SVM operators lack: they ",
                            "take the kernels %s."),
                     model$kernel$name, kc_enum(names(kc_onnx_kernels))),
             arg = "model", class = "onnx")
  }
  invisible(model)
}

# kernclass's kernels and their names in ONNX (kernel_type): the same
# formulas, k = x'z, (gamma x'z + coef0)^degree, exp(-gamma |x - z|^2),
# tanh(gamma x'z + coef0), with kernel_params c(gamma, coef0, degree).
kc_onnx_kernels <- c(linear = "LINEAR", polynomial = "POLY", rbf = "RBF", sigmoid = "SIGMOID")

# The graph's nodes, initializers and outputs (kc_onnx_* messages, as raw).
kc_onnx_graph <- function(model, one, probability, rule) {
  sv <- kc_svm_sv(model)
  if (!is.matrix(sv)) sv <- as.matrix(sv)  # sparse rows: dense support vectors
  k <- model$kernel
  kernel <- list(kc_onnx_attr("kernel_type", kc_onnx_kernels[[k$name]]),
                 kc_onnx_attr("kernel_params", c(
                   if (is.null(k$gamma)) 0 else k$gamma,
                   if (is.null(k$coef0)) 0 else k$coef0,
                   if (is.null(k$degree)) 0 else k$degree), "floats"))
  p <- ncol(model$x)
  nodes <- list()
  inits <- list()
  x <- "input"
  if (!is.null(model$scaling)) {
    nodes <- c(nodes, list(kc_onnx_node("Scaler", x, "scaled", list(
      kc_onnx_attr("offset", model$scaling$center, "floats"),
      kc_onnx_attr("scale", 1 / model$scaling$scale, "floats")), domain = "ai.onnx.ml")))
    x <- "scaled"
  }
  if (one) {
    # SVMRegressor's decision value (one_class = 1 would give only its sign)
    nodes <- c(nodes, list(
      kc_onnx_node("SVMRegressor", x, "decision", c(kernel, list(
        kc_onnx_attr("support_vectors", t(sv), "floats"),
        kc_onnx_attr("coefficients", model$coefs[, 1L], "floats"),
        kc_onnx_attr("rho", unname(model$b), "floats"),
        kc_onnx_attr("n_supports", nrow(sv), "int"))), domain = "ai.onnx.ml"),
      kc_onnx_node("Squeeze", c("decision", "axis_1"), "scores"),
      kc_onnx_node("Greater", c("scores", "zero"), "positive"),
      kc_onnx_node("Cast", "positive", "positive_int",
                   list(kc_onnx_attr("to", kc_onnx_types[["int64"]], "int"))),
      kc_onnx_node("LabelEncoder", "positive_int", "label", list(
        kc_onnx_attr("keys_int64s", c(1, 0), "ints"),
        kc_onnx_attr("values_strings", model$levels, "strings"),
        kc_onnx_attr("default_string", model$levels[[2L]])), domain = "ai.onnx.ml")))
    inits <- list(kc_onnx_tensor("axis_1", 1, "int64", dims = 1),
                  kc_onnx_tensor("zero", 0, "float"))
    outputs <- list(kc_onnx_value_info("label", "string", list("N")),
                    kc_onnx_value_info("scores", "float", list("N")))
    return(list(nodes = nodes, inits = inits, outputs = outputs, p = p))
  }
  lev <- model$levels
  pairs <- kc_ovo_pairs(lev)
  # the support vectors by class, in level order (LIBSVM's layout), each
  # one's coefficients in the rows of its pairs' other classes
  cls <- as.integer(model$y[model$index])
  ord <- order(cls)
  cls <- cls[ord]
  coef <- matrix(0, length(lev) - 1L, length(ord))
  for (m in seq_len(nrow(pairs))) {
    a <- pairs[m, "first"]
    b <- pairs[m, "second"]
    coef[b - 1L, cls == a] <- model$coefs[ord[cls == a], m]
    coef[a, cls == b] <- model$coefs[ord[cls == b], m]
  }
  # probabilities: more classes, the operator's coupling of the pairs'
  # sigmoids; two, Platt's sigmoid in the graph (LIBSVM and kernclass take
  # it as it is, the operator would iterate its coupling from (1/2, 1/2))
  two <- length(lev) == 2L
  coupled <- probability && !two
  platt <- if (probability) kc_platt(model)
  svm_out <- if (coupled) "probabilities" else if (two) "pair_scores" else "scores"
  label_out <- if (rule == "prob") "vote_label" else "label"
  nodes <- c(nodes, list(kc_onnx_node("SVMClassifier", x, c(label_out, svm_out), c(kernel, list(
    kc_onnx_attr("classlabels_strings", lev, "strings"),
    kc_onnx_attr("vectors_per_class", tabulate(cls, length(lev)), "ints"),
    kc_onnx_attr("support_vectors", t(sv[ord, , drop = FALSE]), "floats"),
    kc_onnx_attr("coefficients", t(coef), "floats"),
    kc_onnx_attr("rho", unname(model$b), "floats")),
    if (coupled) list(kc_onnx_attr("prob_a", platt[, "A"], "floats"),
                      kc_onnx_attr("prob_b", platt[, "B"], "floats"))),
    domain = "ai.onnx.ml")))
  if (two) {
    # the operator's scores of two classes are (-f, f); f is predict()'s
    gather <- function(out, index) {
      kc_onnx_node("Gather", c("pair_scores", index), out, list(kc_onnx_attr("axis", 1, "int")))
    }
    if (!probability) {
      nodes <- c(nodes, list(gather("scores", "one")))
      inits <- c(inits, list(kc_onnx_tensor("one", 1, "int64")))
    } else {
      # P(first) = 1 / (1 + exp(A f + B)) kept within [1e-7, 1 - 1e-7], as
      # kc_model_posterior() (R/model-ovo.R) and LIBSVM
      nodes <- c(nodes, list(
        gather("decision", "one_1d"),
        kc_onnx_node("Mul", c("decision", "platt_a"), "platt_af"),
        kc_onnx_node("Add", c("platt_af", "platt_b"), "platt_z"),
        kc_onnx_node("Neg", "platt_z", "platt_minus_z"),
        kc_onnx_node("Sigmoid", "platt_minus_z", "platt_p"),
        kc_onnx_node("Clip", c("platt_p", "p_min", "p_max"), "p_first"),
        kc_onnx_node("Sub", c("p_one", "p_first"), "p_second"),
        kc_onnx_node("Concat", c("p_first", "p_second"), "probabilities",
                     list(kc_onnx_attr("axis", 1, "int")))))
      inits <- c(inits, list(kc_onnx_tensor("one_1d", 1, "int64", dims = 1),
                             kc_onnx_tensor("platt_a", platt[1L, "A"], "float"),
                             kc_onnx_tensor("platt_b", platt[1L, "B"], "float"),
                             kc_onnx_tensor("p_min", 1e-7, "float"),
                             kc_onnx_tensor("p_max", 1 - 1e-7, "float"),
                             kc_onnx_tensor("p_one", 1, "float")))
    }
  }
  if (rule == "prob") {
    nodes <- c(nodes, list(
      kc_onnx_node("ArgMax", "probabilities", "top", list(
        kc_onnx_attr("axis", 1, "int"), kc_onnx_attr("keepdims", 0, "int"))),
      kc_onnx_node("LabelEncoder", "top", "label", list(
        kc_onnx_attr("keys_int64s", seq_along(lev) - 1, "ints"),
        kc_onnx_attr("values_strings", lev, "strings"),
        kc_onnx_attr("default_string", "")), domain = "ai.onnx.ml")))
  }
  out_dims <- if (probability) list("N", length(lev)) else if (length(lev) == 2L) list("N") else
    list("N", nrow(pairs))
  outputs <- list(kc_onnx_value_info("label", "string", list("N")),
                  kc_onnx_value_info(if (probability) "probabilities" else "scores", "float",
                                     out_dims))
  list(nodes = nodes, inits = inits, outputs = outputs, p = p)
}

# The ModelProto of a graph (kc_onnx_graph()): IR version 7, the default
# opset 13 (Squeeze's axes an input, ArgMax, Gather, Greater, Cast) and
# ai.onnx.ml 2 (LabelEncoder from int64 to strings).
kc_onnx_model <- function(graph, model) {
  input_names <- colnames(model$x)
  if (is.null(input_names)) input_names <- paste0("x", seq_len(graph$p))
  g <- c(unlist(lapply(graph$nodes, kc_pb_bytes, field = 1L)),
         kc_pb_string(2L, "kernclass_kernel_svm"),
         unlist(lapply(graph$inits, kc_pb_bytes, field = 5L)),
         kc_pb_bytes(11L, kc_onnx_value_info("input", "float", list("N", graph$p),
                                            doc = paste(input_names, collapse = ", "))),
         unlist(lapply(graph$outputs, kc_pb_bytes, field = 12L)))
  opset <- function(domain, version) c(kc_pb_string(1L, domain), kc_pb_int(2L, version))
  meta <- function(key, value) c(kc_pb_string(1L, key), kc_pb_string(2L, value))
  c(kc_pb_int(1L, 7),
    kc_pb_string(2L, "kernclass"),
    kc_pb_string(3L, format(utils::packageVersion("kernclass"))),
    kc_pb_bytes(8L, opset("", 13)),
    kc_pb_bytes(8L, opset("ai.onnx.ml", 2)),
    kc_pb_string(6L, paste("kernel_svm():", model$type, "with the",
                           kc_kernel_label(model$kernel), "kernel")),
    kc_pb_bytes(7L, g),
    kc_pb_bytes(14L, meta("input_columns", paste(input_names, collapse = "\t"))),
    kc_pb_bytes(14L, meta("levels", paste(model$levels, collapse = "\t"))))
}

# ---- ONNX's messages ---------------------------------------------------------

# TensorProto.DataType codes
kc_onnx_types <- c(float = 1, int64 = 7, string = 8, bool = 9)

# An AttributeProto (AttributeType: FLOAT 1, INT 2, STRING 3, FLOATS 6, INTS
# 7, STRINGS 8); numbers as float32 or int64, as the operators take them.
kc_onnx_attr <- function(name, value, type = "string") {
  c(kc_pb_string(1L, name),
    kc_pb_int(20L, c(float = 1, int = 2, string = 3, floats = 6, ints = 7, strings = 8)[[type]]),
    switch(type,
           float = kc_pb_float(2L, value),
           int = kc_pb_int(3L, value),
           string = kc_pb_string(4L, value),
           floats = kc_pb_floats(7L, value),
           ints = kc_pb_packed_ints(8L, value),
           strings = unlist(lapply(value, kc_pb_string, field = 9L))))
}

# A NodeProto.
kc_onnx_node <- function(op, inputs, outputs, attrs = list(), domain = "") {
  c(unlist(lapply(inputs, kc_pb_string, field = 1L)),
    unlist(lapply(outputs, kc_pb_string, field = 2L)),
    kc_pb_string(3L, paste(op, outputs[[1L]], sep = "_")),
    kc_pb_string(4L, op),
    if (nzchar(domain)) kc_pb_string(7L, domain),
    unlist(lapply(attrs, kc_pb_bytes, field = 5L)))
}

# A TensorProto (an initializer): float as raw little-endian float32s,
# int64 as packed varints; dims NULL for a scalar.
kc_onnx_tensor <- function(name, values, type, dims = NULL) {
  c(if (length(dims)) kc_pb_packed_ints(1L, dims),
    kc_pb_int(2L, kc_onnx_types[[type]]),
    switch(type, float = kc_pb_bytes(9L, kc_pb_float32(values)),
           int64 = kc_pb_packed_ints(7L, values)),
    kc_pb_string(8L, name))
}

# A ValueInfoProto of a tensor: dims a list of sizes (numbers) and symbolic
# names (strings, as "N").
kc_onnx_value_info <- function(name, type, dims, doc = NULL) {
  dim <- function(d) kc_pb_bytes(1L, if (is.character(d)) kc_pb_string(2L, d) else kc_pb_int(1L, d))
  shape <- unlist(lapply(dims, dim))
  tensor <- c(kc_pb_int(1L, kc_onnx_types[[type]]), kc_pb_bytes(2L, shape))
  c(kc_pb_string(1L, name), kc_pb_bytes(2L, kc_pb_bytes(1L, tensor)),
    if (!is.null(doc)) kc_pb_string(3L, doc))
}

# ---- the protocol buffer encoding ------------------------------------------------
# A message is its fields one after the other, each a key, varint(field * 8
# + wire type), then its value: wire type 0 a varint, 2 a length (varint)
# and that many bytes (strings, messages, packed repeated numbers), 5 four
# bytes (a float). Varints: 7 bits a byte, least significant first, the
# high bit set on every byte but the last.

# One whole number 0 <= v < 2^53 as a varint.
kc_pb_varint <- function(v) {
  if (length(v) != 1L || !is.finite(v) || v < 0 || v != floor(v) || v >= 2^53) {
    stop("kernclass internal: a varint must be a whole number in [0, 2^53)")
  }
  out <- raw(0)
  repeat {
    low <- v %% 128
    v <- v %/% 128
    if (v == 0) return(c(out, as.raw(low)))
    out <- c(out, as.raw(low + 128))
  }
}

kc_pb_key <- function(field, wire) kc_pb_varint(field * 8 + wire)

# A varint field (int32, int64, enum).
kc_pb_int <- function(field, v) c(kc_pb_key(field, 0), kc_pb_varint(v))

# A length-delimited field: bytes, a string, a message.
kc_pb_bytes <- function(field, bytes) c(kc_pb_key(field, 2), kc_pb_varint(length(bytes)), bytes)

kc_pb_string <- function(field, s) kc_pb_bytes(field, charToRaw(enc2utf8(as.character(s))))

# Numbers as little-endian IEEE float32, as ONNX's float fields hold them.
kc_pb_float32 <- function(x) {
  x <- as.double(x)
  if (!all(is.finite(x))) stop("kernclass internal: an ONNX float must be finite")
  writeBin(x, raw(), size = 4L, endian = "little")
}

kc_pb_float <- function(field, x) c(kc_pb_key(field, 5), kc_pb_float32(x))

# Repeated floats and int64s, packed: one length-delimited field.
kc_pb_floats <- function(field, x) kc_pb_bytes(field, kc_pb_float32(x))

kc_pb_packed_ints <- function(field, x) {
  kc_pb_bytes(field, c(raw(0), unlist(lapply(as.double(x), kc_pb_varint))))
}
