/* The callback source (callback.c): kernel values computed by R's kernel
 * functions, on the main thread, and R's interrupts and errors caught there
 * and raised after a parallel region. */
#ifndef KERNCLASS_CALLBACK_H
#define KERNCLASS_CALLBACK_H

#include <Rinternals.h>

/* The tile function of R's kernel functions (a kc_tile_fn, kernel.h). */
int kc_callback_tile(const void *ctx_a, const int *ra, int na,
                     const void *ctx_b, const int *rb, int nb, double *out);
/* Signals a failure a tile recorded, if any (the workers call it after each
 * parallel region). */
void kc_callback_raise(void);
/* Forgets one (at the start of an entry point). */
void kc_callback_reset(void);
/* Signals an interrupt as R's Ctrl-C does; does not return. */
void kc_raise_interrupt(void);
/* On R's thread while other threads work: R's check for an interrupt (or
 * an error it raises, as a time limit's) run with the condition caught and
 * kept for kc_callback_raise(); 1 if there is one.  Nothing jumps. */
int kc_callback_poll(void);
/* On R's thread: fn(n) run with any jump out of it (an error or restart,
 * its handlers' included) stopped and kept for kc_callback_raise(), which
 * goes on with it; 1 if one is kept (then fn is not called). */
int kc_callback_call(SEXP fn, int n);

#endif
