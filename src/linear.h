/* The linear SVM by dual coordinate descent (linear.c). */
#ifndef KERNCLASS_LINEAR_H
#define KERNCLASS_LINEAR_H

/* How a solve ended; R reads the codes (ffi_enums, R/engine-c-enums.R). */
typedef enum {
    KC_LINEAR_CONVERGED = 0,  /* the projected gradients within eps */
    KC_LINEAR_MAX_PASS = 1    /* max_pass passes reached first */
} kc_linear_status;

typedef struct {
    double bias;     /* the constant feature appended to each row */
    double eps;      /* the tolerance on the projected gradients */
    long max_pass;
    int shrinking;
} kc_linear_options;

typedef struct { double objective; long passes; kc_linear_status status; } kc_linear_result;

/* On rows[0..n) of a float store z (row-major, r wide) with y +1 / -1 and
 * bounds C: w gets r + 1 weights (the last the constant's), alpha the n
 * dual variables.  Draws with unif_rand() (the caller holds GetRNGstate). */
void kc_linear_svm(const float *z, int r, const int *rows, int n, const int *y,
                   const double *C, const kc_linear_options *opt,
                   double *w, double *alpha, kc_linear_result *res);

#endif
