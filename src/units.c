/* Independent units of work side by side on OpenMP threads (kc_units), and
 * the scratch memory and interrupt checks of code that runs either on R's
 * thread or inside such a unit (kc_alloc, kc_mark, kc_release,
 * kc_check_interrupt).
 *
 * On R's thread, outside units, these are R_alloc, vmaxget, vmaxset and
 * R_CheckUserInterrupt.  Inside a unit no R API may be called: its scratch
 * is malloc'd blocks chained on the thread, all freed when the unit ends.
 * R's thread (the team's thread 0) polls R for an interrupt at the units'
 * checks and, once no unit is left to start, while the others finish,
 * with the condition caught (kc_callback_poll: nothing jumps out of the
 * parallel region), and tells the units to stop; a unit stops at its next
 * check by a longjmp to its start on its own thread (no R context lies in
 * between).  The caller raises the interrupt (or the error a check caught,
 * as a time limit's), or the out-of-memory error, after the region.  At
 * the same polls, and between its own units, R's thread tells the units
 * finished so far to a progress function (kc_units_told), any jump out of
 * it stopped there (kc_callback_call) and gone on with after the region. */
#ifdef _OPENMP
#include <omp.h>
#endif
#include <setjmp.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif
#include <Rinternals.h>
#include <R_ext/Utils.h>
#include "kernclass.h"
#include "callback.h"
#include "units.h"

/* A block's header: the data after it keep malloc's alignment. */
typedef union block { union block *prev; max_align_t align; } block;

typedef struct {
    block *top;              /* the last block allocated */
    jmp_buf start;           /* where a stopped unit ends */
    volatile int *stop;      /* KC_UNITS_*: every unit ends at its next check */
    int main;                /* on R's thread: polls R for an interrupt */
    kc_units_progress *progress;  /* NULL: none */
} unit_state;

static _Thread_local unit_state *unit;  /* NULL: on R's thread, outside units */

void *kc_alloc(size_t n, size_t size)
{
    if (!unit) return R_alloc(n, size);
    block *b = NULL;
    if (!size || n <= (SIZE_MAX - sizeof(block)) / size) b = (block *) malloc(sizeof(block) + n * size);
    if (!b) {
#pragma omp atomic write
        *unit->stop = KC_UNITS_MEMORY;
        longjmp(unit->start, 1);
    }
    b->prev = unit->top;
    unit->top = b;
    return b + 1;
}

const void *kc_mark(void)
{
    return unit ? (const void *) unit->top : vmaxget();
}

void kc_release(const void *mark)
{
    if (!unit) {
        vmaxset(mark);
        return;
    }
    while (unit->top && unit->top != (const block *) mark) {
        block *b = unit->top;
        unit->top = b->prev;
        free(b);
    }
}

int kc_in_unit(void)
{
    return unit != NULL;
}

/* On R's thread: the units finished since the last report told to the
 * progress function; 1 if a condition was caught (or is kept). */
static int report(kc_units_progress *p)
{
    if (!p || !p->fn) return 0;
    int d;
#pragma omp atomic read
    d = p->done;
    if (d == p->told) return 0;
    int n = d - p->told;
    p->told = d;
    return kc_callback_call(p->fn, n);
}

/* On R's thread inside the region: 1 (and the units told) on an interrupt
 * or a condition of the progress function. */
static int interrupted(volatile int *stop, kc_units_progress *p)
{
    if (!report(p) && !kc_callback_poll()) return 0;
#pragma omp atomic write
    *stop = KC_UNITS_INTERRUPTED;
    return 1;
}

void kc_check_interrupt(void)
{
    if (!unit) {
        R_CheckUserInterrupt();
        return;
    }
    int stop;
#pragma omp atomic read
    stop = *unit->stop;
    if (stop || (unit->main && interrupted(unit->stop, unit->progress))) longjmp(unit->start, 1);
}

/* Runs one unit in unit mode on this thread; its scratch freed after it. */
static void run_unit(kc_unit_fn fn, void *ctx, int u, int thread, volatile int *stop,
                     kc_units_progress *progress)
{
    unit_state st;
    st.top = NULL;
    st.stop = stop;
    st.main = thread == 0;
    st.progress = progress;
    unit = &st;
    if (!setjmp(st.start)) fn(ctx, u, thread);
    kc_release(NULL);
    unit = NULL;
}

#ifdef _WIN32
#define WAITS_PER_POLL 1
#else
#define WAITS_PER_POLL 20
#endif

kc_units_status kc_units(int nunits, int nthreads, kc_unit_fn fn, void *ctx)
{
    return kc_units_told(nunits, nthreads, fn, ctx, NULL);
}

kc_units_status kc_units_told(int nunits, int nthreads, kc_unit_fn fn, void *ctx,
                              kc_units_progress *p)
{
    if (nthreads > nunits) nthreads = nunits;
    if (nthreads <= 1) {
        /* on R's thread as any other code: R_alloc, interrupts at once */
        for (int u = 0; u < nunits; u++) {
            fn(ctx, u, 0);
            if (!p) continue;
            p->done++;
            if (report(p)) return KC_UNITS_INTERRUPTED;
        }
        return KC_UNITS_DONE;
    }
    volatile int stop = KC_UNITS_DONE;
    int next = 0, done = 0;
#pragma omp parallel num_threads(nthreads)
    {
        int thread = 0;
#ifdef _OPENMP
        thread = omp_get_thread_num();
#endif
        for (;;) {
            int u, s;
#pragma omp atomic capture
            u = next++;
#pragma omp atomic read
            s = stop;
            if (u >= nunits || s) break;
            run_unit(fn, ctx, u, thread, &stop, p);
#pragma omp atomic update
            done++;
            if (p) {
#pragma omp atomic update
                p->done++;
            }
            /* R's thread between its units: a condition caught stops the others */
            if (thread == 0 && report(p)) {
#pragma omp atomic write
                stop = KC_UNITS_INTERRUPTED;
            }
        }
        /* R's thread: watch for an interrupt while the others finish,
         * every 2 ms, and for their end every 0.1 ms (a race's step ends
         * with its last unit: sleeping 2 ms between looks made each step
         * wait 1 ms past it on average); Windows: both every 2 ms */
        if (thread == 0) {
            for (int wait = 0;; wait++) {
                int d, s;
#pragma omp atomic read
                d = done;
#pragma omp atomic read
                s = stop;
                if (s || d >= nunits || (wait % WAITS_PER_POLL == 0 && interrupted(&stop, p))) break;
#ifdef _WIN32
                Sleep(2);
#else
                struct timespec ts = {0, 100000};  /* 0.1 ms */
                nanosleep(&ts, NULL);
#endif
            }
        }
    }
    /* the last units' progress, told on R's thread after the region */
    if (stop == KC_UNITS_DONE && report(p)) stop = KC_UNITS_INTERRUPTED;
    return (kc_units_status) stop;
}

void kc_units_raise(kc_units_status why)
{
    if (why == KC_UNITS_INTERRUPTED) {
        kc_callback_raise();
        kc_raise_interrupt();  /* not reached: a poll kept the condition */
    }
    if (why == KC_UNITS_MEMORY)
        kc_error(KC_ERROR_MEMORY, "kernclass: out of memory in a unit of work; use fewer threads "
                 "(options(kernclass.threads = 1)) or less data");
}
