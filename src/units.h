/* Units of work on threads (units.c): independent fits side by side, and
 * the scratch memory and interrupt checks of code that runs either on R's
 * thread or inside such a unit. */
#ifndef KERNCLASS_UNITS_H
#define KERNCLASS_UNITS_H

#include <stddef.h>
#include <Rinternals.h>

/* R_alloc, vmaxget, vmaxset and R_CheckUserInterrupt on R's thread; inside
 * a unit of kc_units their thread-safe stand-ins (a stopped unit ends at
 * the check). */
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
typedef enum { KC_UNITS_DONE = 0, KC_UNITS_INTERRUPTED = 1, KC_UNITS_MEMORY = 2 } kc_units_status;
typedef void (*kc_unit_fn)(void *ctx, int u, int thread);
kc_units_status kc_units(int nunits, int nthreads, kc_unit_fn fn, void *ctx);
/* kc_units with the units' progress told to R: fn (an R function, or
 * NULL) is called with the number of units finished since it was last
 * called, on R's thread only (at its interrupt polls, between units on one
 * thread, and once after the region), a jump out of it stopped there
 * (the units stop, and kc_units_raise() goes on with it).  done counts the
 * finished units over every call the progress serves, told those told. */
typedef struct { SEXP fn; int done, told; } kc_units_progress;
kc_units_status kc_units_told(int nunits, int nthreads, kc_unit_fn fn, void *ctx,
                              kc_units_progress *progress);
void kc_units_raise(kc_units_status why);

#endif
