/* Column passes over a design matrix (columns.c). */
#ifndef KERNCLASS_COLUMNS_H
#define KERNCLASS_COLUMNS_H

#include <stddef.h>

/* Means and standard deviations as colMeans() and sd(). */
void kc_column_moments(const double *x, ptrdiff_t n, int p, double *mean, double *sd);
/* out = (x - center) / scale by column. */
void kc_scale_columns(const double *x, ptrdiff_t n, int p, const double *center,
                      const double *scale, double *out);
/* The counts of infinite and of NA/NaN values. */
void kc_count_nonfinite(const double *x, ptrdiff_t len, ptrdiff_t *n_inf, ptrdiff_t *n_na);

#endif
