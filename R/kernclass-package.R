#' kernclass: kernel classifiers with a fast C kernel engine
#'
#' The family of kernel classifiers in one interface: [kernel_means()] (the
#' kernel nearest-means classifier), [kernel_parzen()] (the Parzen-window
#' Bayes classifier), [kernel_bayes()] (the kernelized Bayes classifier,
#' with its [threshold_search()]) and [kernel_svm()] (soft- and hard-margin
#' support vector machines trained by SMO), built on one multi-threaded C
#' kernel engine, also available directly as [kernel_matrix()].
#'
#' Options: `kernclass.threads`, the number of threads of the kernel engine
#' (default: the cores this process may use; see [kernclass_threads()]).
#' Results do not depend on it.
#'
#' @keywords internal
#' @useDynLib kernclass, .registration = TRUE
"_PACKAGE"
