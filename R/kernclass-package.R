#' kernclass: kernel classifiers with a fast C kernel engine
#'
#' The family of kernel classifiers in one interface: [kernel_means()] (the
#' kernel nearest-means classifier) and [kernel_parzen()] (the Parzen-window
#' Bayes classifier), built on one multi-threaded C kernel engine, also
#' available directly as [kernel_matrix()].
#'
#' Options: `kernclass.threads`, the number of threads of the kernel engine
#' (default: all cores). Results do not depend on it.
#'
#' @keywords internal
#' @useDynLib kernclass, .registration = TRUE
"_PACKAGE"
