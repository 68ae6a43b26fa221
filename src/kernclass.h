/* kernclass: shared declarations of the C kernel engine.
 *
 * Layers: ffi.c holds the .Call entry points (SEXP in, SEXP out, all checks),
 * which only translate; the engine (kernel.c with its instruction-set kernels
 * in isa.c, smo.c, threshold.c, columns.c) holds the plain C workers, which
 * see only const double * data and prepare it themselves.
 */
#ifndef KERNCLASS_H
#define KERNCLASS_H

#include <limits.h>
#include <stddef.h>

/* The kernels, in the order of the rows of R's kernel table
 * (R/kernel-table.R), whose code is this value + 1.  A new kernel is one
 * line here, before KC_KERNEL_COUNT, and one case in kernel_def_of()
 * (kernel.c); tests/testthat/test-kernel-table.R pins the two sides. */
typedef enum {
    KC_LINEAR,          /* x'y                           */
    KC_POLYNOMIAL,      /* (gamma x'y + coef0)^degree    */
    KC_RBF,             /* exp(-gamma ||x - y||^2)       */
    KC_LAPLACE,         /* exp(-gamma ||x - y||)         */
    KC_SIGMOID,         /* tanh(gamma x'y + coef0)       */
    KC_KERNEL_COUNT     /* the number of kernels: keep it last */
} kc_kernel_type;

typedef struct {
    kc_kernel_type type;
    double gamma, coef0;
    int degree;
} kc_kernel;

/* Where a set of points comes from: the tiles of kernel values are computed
 * from each source by its own function (kernel.c), so that the workers and
 * the SMO's row cache take any of them. */
typedef enum {
    KC_SRC_DENSE = 0,    /* x: n x p column-major, as R stores a matrix */
    KC_SRC_SPARSE,       /* rows in compressed sparse row form */
    KC_SRC_PRECOMPUTED,  /* kernel values given: x an ld x m matrix of them */
    KC_SRC_CALLBACK      /* kernel values computed by R, on the main thread */
} kc_source;

/* A callback source's tile: kernel values of the data rows ra[0..na) of
 * ctx_a against rows rb[0..nb) of ctx_b (0-based), na x nb row-major into
 * out.  Returns 0, or 1 after a failure it has recorded (kc_callback_raise
 * signals it later, outside any parallel region). */
typedef int (*kc_tile_fn)(const void *ctx_a, const int *ra, int na,
                          const void *ctx_b, const int *rb, int nb, double *out);

/* A set of points.  Dense: an n x p column-major matrix as R stores it.
 * Sparse: point i is row map(i) of a CSR matrix with p columns, its values
 * val[rowptr[r] .. rowptr[r + 1]) at the increasing 0-based columns col[].
 * Precomputed: point i's kernel value with a point j of another set is
 * x[colmap_j + map(i) * ld], colmap_j the training point that j is (NULL
 * for points that are never the columns of a tile: new data): x holds one
 * column per point of its source, the training points down each column, so
 * that a row of kernel values is read contiguously.  Callback: point
 * i is data row map(i) of ctx, its tiles computed by tile_fn.  map(i) is
 * rowmap[i], or i where rowmap is NULL.  sqnorm: the squared norms the
 * distance kernels need (for the precomputed and callback sources k(x, x)),
 * NULL until kc_prepare_points computes them.  Initialisers that stop after
 * the dense fields get a dense source. */
typedef struct {
    const double *x;
    ptrdiff_t n;
    int p;
    const double *sqnorm;
    const double *packed;  /* dense: the rows as tile panels (kc_prepare_points), or NULL */
    kc_source src;
    const int *rowmap;
    const int *rowptr, *col;   /* sparse */
    const double *val;
    ptrdiff_t ld;              /* precomputed */
    const int *colmap;
    kc_tile_fn tile_fn;        /* callback */
    const void *ctx;
} kc_points;

/* The points map[0..m) of a (indices of its points), as a set of their own
 * (dense rows copied, other sources re-indexed); R_alloc'd. */
kc_points kc_points_subset(const kc_points *a, const int *map, int m);
/* The callback source (callback.c): the tile function of R's kernel
 * functions; kc_callback_raise() signals a failure a tile recorded, if any
 * (the workers call it after each parallel region); kc_callback_reset()
 * forgets one (at the start of an entry point). */
int kc_callback_tile(const void *ctx_a, const int *ra, int na,
                     const void *ctx_b, const int *rb, int nb, double *out);
void kc_callback_raise(void);
/* Raises an R error of class c("kernclass_<kind>_error", "kernclass_error",
 * "error", "condition") (errors.c); kind is "internal" or "size". */
void kc_error(const char *kind, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((noreturn, format(printf, 2, 3)))
#endif
    ;
/* The same of kind "internal", the message led by "kernclass internal: ". */
void kc_internal(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((noreturn, format(printf, 1, 2)))
#endif
    ;
void kc_callback_reset(void);
/* Signals an interrupt as R's Ctrl-C does (callback.c); does not return. */
void kc_raise_interrupt(void);
/* On R's thread while other threads work: R's check for an interrupt (or
 * an error it raises, as a time limit's) run with the condition caught and
 * kept for kc_callback_raise(); 1 if there is one.  Nothing jumps. */
int kc_callback_poll(void);

/* Scratch memory and interrupt checks (units.c): R_alloc, vmaxget,
 * vmaxset and R_CheckUserInterrupt on R's thread; inside a unit of
 * kc_units their thread-safe stand-ins (a stopped unit ends at the check). */
void *kc_alloc(size_t n, size_t size);
const void *kc_mark(void);
void kc_release(const void *mark);
void kc_check_interrupt(void);
/* Whether this thread runs a unit of kc_units in unit mode. */
int kc_in_unit(void);

/* Runs fn(ctx, u, thread) for the units u = 0..nunits-1 on up to nthreads
 * threads (thread: 0..nthreads-1, each thread's own workspace); with one
 * thread on R's thread as any code.  fn calls no R API but the four above.
 * Returns KC_UNITS_DONE, or why the units stopped: the caller frees what it
 * must, then kc_units_raise() signals it. */
enum { KC_UNITS_DONE = 0, KC_UNITS_INTERRUPTED = 1, KC_UNITS_MEMORY = 2 };
typedef void (*kc_unit_fn)(void *ctx, int u, int thread);
int kc_units(int nunits, int nthreads, kc_unit_fn fn, void *ctx);
void kc_units_raise(int why);

/* Side of a square tile: rows and columns of kernel values computed at once. */
#define KC_TILE 128
/* The most rows the engine takes: it indexes rows with int, and rounds
 * counts up to whole tiles. */
#define KC_MAX_ROWS (INT_MAX - KC_TILE)

/* Threads (threads.c): the policy of the whole engine. */
void kc_threads_init(void);          /* at load time */
/* The threads a region may use when the user asked for requested. */
int kc_threads_cap(int requested);
/* The most threads any region uses, whatever was requested. */
int kc_threads_max(void);
/* nthreads, or one where `flops` of work is too little to share. */
int kc_threads_for(double flops, int nthreads);
double kc_seconds(void);             /* wall clock, for the tuner */

/* Chooses, run by run, between one thread and nthreads for a region that is
 * repeated many times, by the seconds per unit of work each has taken. */
typedef struct {
    int nthreads, running, exploring, fixed;
    long runs[2];
    double cost[2];          /* seconds per unit of work: one thread, all */
    double spent, explored;  /* seconds in all runs, in runs of the other choice */
    double start, work;
} kc_tuner;
void kc_tuner_init(kc_tuner *t, int nthreads);
int kc_tuner_start(kc_tuner *t, double work);  /* the threads for this run */
void kc_tuner_stop(kc_tuner *t);

/* The kernel table (kernel.c): a kernel's name, as in R's table (NULL for a
 * code without a case), and whether it is computed from squared distances
 * (then kc_points need their squared norms) rather than inner products. */
const char *kc_kernel_name(kc_kernel_type type);
int kc_kernel_uses_distance(kc_kernel_type type);
int kc_kernel_is_plain(kc_kernel_type type);    /* k(x, y) = x'y */
int kc_kernel_is_bounded(kc_kernel_type type);  /* |k(x, y)| <= 1 */

/* Picks the fastest micro-kernel and exp for this CPU; called at load time. */
void kc_choose_kernels(void);
/* "avx512", "avx2" or "c": the instruction set the engine chose. */
const char *kc_engine_name(void);
/* Squared row norms; for the precomputed and callback sources k(x, x). */
void kc_row_sqnorms(const kc_points *a, double *out);

/* A copy of *a ready for the tiles: with the squared norms a distance
 * kernel needs, and packed into tile panels when pack is set (points that
 * serve as the columns of many tiles are packed once, not once per tile).
 * Buffers R_alloc'd.  The workers call it on the points they are given. */
kc_points kc_prepare_points(const kc_kernel *k, const kc_points *a, int pack);

/* Rows of the kernel matrix of b with itself, as floats: out[r][t] =
 * k(b[rows[r]], b[t]) on nthreads threads (the caller's choice); work holds
 * kc_rows_work_size(b, nthreads) doubles (b as prepared). */
size_t kc_rows_work_size(const kc_points *b, int nthreads);
void kc_rows(const kc_kernel *k, const kc_points *b, const int *rows, int nr,
             float *const *out, int nthreads, double *work);

/* The workers.  Each returns normally; interrupts are checked between
 * parallel chunks on the calling thread.  nthreads >= 1. */
void kc_gram(const kc_kernel *k, const kc_points *a, const kc_points *b,
             int symmetric, double *out, int nthreads);
/* K(a, a) rounded to floats: the rows the solver's store would hold. */
void kc_gram_float(const kc_kernel *k, const kc_points *a, float *out, int nthreads);

/* out = K(a, b) w: w is b->n x ncols, out a->n x ncols, both column-major;
 * for a set of nk kernels of one type (k[0..nk)), their results one after
 * another, each from the same tiles of inner products or distances. */
void kc_expansion(const kc_kernel *k, int nk, const kc_points *a, const kc_points *b,
                  const double *w, int ncols, double *out, int nthreads);

void kc_within_group_sums(const kc_kernel *k, int nk, const kc_points *b,
                          const int *group, int ngroups, double *out,
                          int nthreads);

/* out (n x ngroups) = sums of k(x_i, x_j) over the rows j != i of each group. */
void kc_loo_group_sums(const kc_kernel *k, const kc_points *b, const int *group,
                       int ngroups, double *out, int nthreads);

/* k(x, x) from ||x||^2 alone (every supported kernel allows it). */
double kc_self_kernel(const kc_kernel *k, double sqnorm);

/* Column passes over a design matrix (columns.c): means and standard
 * deviations as colMeans() and sd(); out = (x - center) / scale by column;
 * the counts of infinite and of NA/NaN values. */
void kc_column_moments(const double *x, ptrdiff_t n, int p, double *mean, double *sd);
void kc_scale_columns(const double *x, ptrdiff_t n, int p, const double *center,
                      const double *scale, double *out);
void kc_count_nonfinite(const double *x, ptrdiff_t len, ptrdiff_t *n_inf, ptrdiff_t *n_na);

/* The SMO solver (smo.c). */
enum { KC_SMO_CONVERGED = 0, KC_SMO_MAX_ITER = 1, KC_SMO_UNBOUNDED = 2 };

typedef struct {
    double *alpha;        /* n, filled by the solver */
    double objective, rho, gap;
    double r;             /* with two sets: the margin r of nu-SVC (else 1) */
    long iterations, rows_computed;
    int status;
} kc_smo_result;

/* linear: the linear term p (-1 for C-SVC, 0 for the nu problems); alpha0:
 * a feasible start (the nu problems' own, or a warm start), or NULL for 0;
 * nsets: 1, or 2 for nu-SVC (pairs chosen within a class).  store, filled:
 * n x n floats and n flags kept by the caller across solves on the same
 * points and kernel (rows computed once for a path of costs), or NULL for an
 * LRU cache of cache_mb; whole: fill the store with every row first.  A
 * store holding every row is read directly (no cache bookkeeping); the
 * iterates are the same in every mode. */
void kc_smo(const kc_kernel *k, const kc_points *x, const int *y, const double *C,
            double linear, const double *alpha0, int nsets,
            double eps, long max_iter, double cache_mb, int shrinking, int nthreads,
            float *store, unsigned char *filled, int whole, kc_smo_result *res);

/* The costs of kernel settings over the folds of a cross-validation
 * (svm-path.c).  A job is one kernel setting: x[0..nx) all n points (dense;
 * nx = 1, or nrun: as fold run[r]'s training rows scale them), y their
 * classes 0..nclass-1; the folds run[0..nrun) (of the n points' fold) are
 * each held out in turn, every class pair fitted on the other folds' rows
 * for the costs cost[0..ncost) (increasing), with bounds
 * cw[class + nclass r] * (cost * w[t]).  Out: decision (n x pairs x ncost:
 * the held-out rows' decision values, NA elsewhere), and per fit
 * (nrun x pairs x ncost) rho, iterations and status (KC_SMO_*, or the two
 * below).  The jobs' class pairs on each fold run side by side on up to
 * nthreads threads (each pair's costs are one chain of warm starts). */
enum { KC_PATH_NOT_FINITE = 3, KC_PATH_EMPTY = 4 };
typedef struct {
    const kc_kernel *k;
    const kc_points *x;
    int nx;
    const int *y;
    int nclass, ncost;
    const double *cost, *w, *cw;
    double eps;
    long max_iter;
    int shrinking;
    double *decision, *rho, *iterations;
    int *status;
} kc_svm_path_job;
void kc_svm_path(const kc_svm_path_job *jobs, int njobs, const int *fold, const int *run,
                 int nrun, int nthreads);
/* Bytes of the solver's kept row store for n points (n x n floats, n
 * flags); of the shared path for n points, with nx input matrices for nrun
 * folds: kept once (the kernel of all n points where one serves every
 * fold), and per thread fitting, whose largest pair block has m rows and
 * largest fold t. */
double kc_svm_store_bytes(double n);
double kc_svm_path_bytes_once(double n, int nx, int nrun);
double kc_svm_path_bytes_thread(double m, double t);
/* Asks the kernel for huge pages on a large buffer that is written once
 * and read often (smo.c). */
void kc_advise_huge_pages(void *p, size_t bytes);

/* The threshold search (threshold.c) on n scores with labels +1 / -1: out gets
 * c(b, split, consistency, sign), the decision being sign * (score + b). */
void kc_threshold_search(const double *score, const int *label, ptrdiff_t n, double *out);

/* coupling.c: class probabilities from one-vs-one pair probabilities r
 * (n x k(k-1)/2) into p (n x k), both column-major. */
void kc_pairwise_coupling(const double *r, ptrdiff_t n, int k, double *p, int nthreads);

/* Low-rank kernel features (features.c), computed in row blocks: Nystrom,
 * z(x) = proj' k(landmarks, x) (proj m x r), or random Fourier features,
 * z(x) = sqrt(2 / r) cos(freq'x + phase) (freq p x r, dense x only). */
enum { KC_FEATURES_NYSTROM = 1, KC_FEATURES_FOURIER = 2 };
typedef struct {
    int type;
    kc_kernel kernel;
    kc_points landmarks;
    const double *proj, *freq, *phase;
    const double *projt, *freqt;  /* their transposes, made by the workers */
    int m, p, r;
} kc_feature_map;
size_t kc_feature_work_size(const kc_feature_map *f);
/* sums (G x r) of the features of each group's rows (0-based codes) */
void kc_feature_sums(const kc_feature_map *f, const kc_points *a, const int *group, int G,
                     double *sums, int nthreads);
/* out (n x q) = Z w, w r x q; all column-major */
void kc_feature_product(const kc_feature_map *f, const kc_points *a, const double *w, int q,
                        double *out, int nthreads);
/* the features themselves, n x r column-major */
void kc_feature_matrix(const kc_feature_map *f, const kc_points *a, double *out, int nthreads);
/* the features as floats, row-major: out[i * r + j] */
void kc_feature_store(const kc_feature_map *f, const kc_points *a, float *out, int nthreads);
long kc_kmeanspp(const kc_kernel *k, const kc_points *a, int m, int *chosen, int nthreads);
void kc_store_product(const float *z, int r, const int *rows, ptrdiff_t n, const double *w,
                      int q, double *out);

/* The linear SVM by dual coordinate descent (linear.c) on rows[0..n) of a
 * float store z (row-major, r wide) with a constant feature `bias`: w gets
 * r + 1 weights (the last the constant's), alpha the n dual variables.
 * status 0 converged, 1 max_pass reached.  Draws with unif_rand(). */
typedef struct { double objective; long passes; int status; } kc_linear_result;
void kc_linear_svm(const float *z, int r, const int *rows, int n, const int *y,
                   const double *C, double bias, double eps, long max_pass, int shrinking,
                   double *w, double *alpha, kc_linear_result *res);

#endif
