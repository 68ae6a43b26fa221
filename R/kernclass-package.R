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
#' `kernclass.memory_limit`, in MB: the memory the exact routes may take
#' (default: what the system reports as available, on Linux `MemAvailable`
#' and a cgroup's limit; no limit elsewhere). Where an exact computation
#' would need more (the n x m result of [kernel_matrix()], the exact SVM's
#' n x pairs coefficients or a `cachesize` beyond it, centring given kernel
#' values, the n x classes expansion weights of [kernel_means()] and
#' [kernel_parzen()]) it stops before allocating, with an error of class
#' `"kernclass_memory_error"` that names the approximate routes
#' ([approximations]); the default `cachesize` of [kernel_svm()] takes at
#' most a quarter of it.
#'
#' `kernclass.block_rows`: the rows of one block of the approximations'
#' passes over the training rows (default 100000). A fixed number, so that
#' the sums do not depend on threads or plan; fits past one block report
#' their progress through progressr.
#'
#' @keywords internal
#' @useDynLib kernclass, .registration = TRUE
"_PACKAGE"
