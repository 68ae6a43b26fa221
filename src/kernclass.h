/* kernclass: shared declarations of the C kernel engine.
 *
 * Layers: ffi.c holds the .Call entry points (SEXP in, SEXP out, all checks);
 * kernel.c holds the plain C workers, which see only const double * data.
 */
#ifndef KERNCLASS_H
#define KERNCLASS_H

#include <stddef.h>

/* Kernel codes, in the order of the R-side vector kernel_names(). */
typedef enum {
    KC_LINEAR = 1,      /* x'y                           */
    KC_POLYNOMIAL = 2,  /* (gamma x'y + coef0)^degree    */
    KC_RBF = 3,         /* exp(-gamma ||x - y||^2)       */
    KC_LAPLACE = 4,     /* exp(-gamma ||x - y||)         */
    KC_SIGMOID = 5      /* tanh(gamma x'y + coef0)       */
} kc_kernel_type;

typedef struct {
    kc_kernel_type type;
    double gamma, coef0;
    int degree;
} kc_kernel;

/* A set of points: an n x p column-major matrix as R stores it, plus the
 * squared row norms that the distance kernels need (NULL for the others). */
typedef struct {
    const double *x;
    ptrdiff_t n;
    int p;
    const double *sqnorm;
    const double *packed;  /* the rows as tile panels (kc_pack_points), or NULL */
} kc_points;

/* Side of a square tile: rows and columns of kernel values computed at once. */
#define KC_TILE 128

/* Threads (threads.c): the policy of the whole engine. */
void kc_threads_init(void);          /* at load time */
/* The threads a region may use when the user asked for requested. */
int kc_threads_cap(int requested);
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

int kc_kernel_uses_distance(const kc_kernel *k);
/* Picks the fastest micro-kernel and exp for this CPU; called at load time. */
void kc_choose_kernels(void);
/* "avx512", "avx2" or "c": the instruction set the engine chose. */
const char *kc_engine_name(void);
void kc_row_sqnorms(const kc_points *a, double *out);

/* Points that serve as the columns of many tiles can be packed into tile
 * panels once, instead of once per tile: kc_pack_points allocates (R_alloc)
 * and fills a->packed. */
void kc_pack_points(kc_points *a);

/* Rows of the kernel matrix of b with itself, as floats: out[r][t] =
 * k(b[rows[r]], b[t]) on nthreads threads (the caller's choice); work holds
 * kc_rows_work_size(b->p, nthreads) doubles. */
size_t kc_rows_work_size(int p, int nthreads);
void kc_rows(const kc_kernel *k, const kc_points *b, const int *rows, int nr,
             float *const *out, int nthreads, double *work);

/* The workers.  Each returns normally; interrupts are checked between
 * parallel chunks on the calling thread.  nthreads >= 1. */
void kc_gram(const kc_kernel *k, const kc_points *a, const kc_points *b,
             int symmetric, double *out, int nthreads);

/* out = K(a, b) w: w is b->n x ncols, out a->n x ncols, both column-major. */
void kc_expansion(const kc_kernel *k, const kc_points *a, const kc_points *b,
                  const double *w, int ncols, double *out, int nthreads);

void kc_within_group_sums(const kc_kernel *k, const kc_points *b,
                          const int *group, int ngroups, double *out,
                          int nthreads);

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
    long iterations, rows_computed;
    int status;
} kc_smo_result;

void kc_smo(const kc_kernel *k, const kc_points *x, const int *y, const double *C,
            double eps, long max_iter, double cache_mb, int shrinking, int nthreads,
            kc_smo_result *res);

/* Seed 002's threshold search on n scores with labels +1 / -1: out gets
 * c(b, split, consistency).  work_* and scratch_* hold n values each. */
void kc_threshold_search(const double *score, const int *label, ptrdiff_t n,
                         double *work_x, int *work_y, double *scratch_x, int *scratch_y,
                         double *out);

#endif
