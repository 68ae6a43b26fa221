/* Pairwise coupling of one-vs-one probabilities (coupling.c). */
#ifndef KERNCLASS_COUPLING_H
#define KERNCLASS_COUPLING_H

#include <stddef.h>

/* Class probabilities from one-vs-one pair probabilities r (n x k(k-1)/2)
 * into p (n x k), both column-major. */
void kc_pairwise_coupling(const double *r, ptrdiff_t n, int k, double *p, int nthreads);

#endif
