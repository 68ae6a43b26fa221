/* The threshold search of the kernelized Bayes classifier (threshold.c). */
#ifndef KERNCLASS_THRESHOLD_H
#define KERNCLASS_THRESHOLD_H

#include <stddef.h>

/* On n scores with labels +1 / -1: out gets c(b, split, consistency, sign),
 * the decision being sign * (score + b). */
void kc_threshold_search(const double *score, const int *label, ptrdiff_t n, double *out);

#endif
