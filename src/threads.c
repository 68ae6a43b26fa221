/* The engine's threads policy, in one place, as data.table's getDTthreads():
 *
 * kc_threads_request() decides how many threads are asked for: the option
 * kernclass.threads (kernclass_threads(n) sets it), else the cores R counts
 * (parallelly::availableCores(), which reads the affinity mask, cgroups and
 * mc.cores) cut by the environment's OMP_THREAD_LIMIT and OMP_NUM_THREADS;
 * R reads it through one entry (ffi_threads).  kc_threads_cap() then cuts a
 * request to what this process can really run:
 *  - one in a forked child: libgomp's thread pool does not survive fork(),
 *    and a child whose parent (or any package in it) ran a parallel region
 *    would wait forever at its first one;
 *  - the processors OpenMP sees and OMP_THREAD_LIMIT;
 *  - the threads that can be created: libgomp ends the process when it
 *    cannot create one (under ulimit -v, say), so a larger team is tried
 *    first with plain threads of the same stack size, once per size.
 *
 * Regions repeated thousands of times (the SMO's passes and kernel rows),
 * and the kernel matrix a short fit fills first, are timed: a tuner runs
 * each on one thread or on all, whichever has been faster per unit of work
 * lately, and tries the other now and then.  On a
 * machine shared with other programs, a parallel region waits at its end for
 * a thread that the scheduler has set aside, up to a time slice; there one
 * thread wins, on an idle machine all of them.  Results never depend on it. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#include <pthread.h>
#endif
#include "threads.h"

/* The most threads any region uses: the home of this number (R reads it
 * through ffi_threads). */
#define MAX_THREADS 1024

#ifdef _OPENMP
static volatile int forked_child = 0;
static void note_fork(void) { forked_child = 1; }

/* Team sizes known to be creatable, and the most that could be created
 * when a try fell short. */
static int verified = 1, ceiling = MAX_THREADS;

/* The stack size libgomp gives its threads: OMP_STACKSIZE or GOMP_STACKSIZE
 * ("size[B|K|M|G]", kilobytes by default), else the system's default. */
static size_t omp_stack_bytes(void)
{
    const char *names[] = {"OMP_STACKSIZE", "GOMP_STACKSIZE"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(names[i]);
        if (!v || !*v) continue;
        char *end;
        double size = strtod(v, &end);
        while (*end == ' ') end++;
        double unit = 1024;
        switch (*end) {
        case 'b': case 'B': unit = 1; break;
        case 'm': case 'M': unit = 1048576.0; break;
        case 'g': case 'G': unit = 1073741824.0; break;
        default: break;
        }
        if (size > 0 && size * unit < (double) SIZE_MAX) return (size_t) (size * unit);
    }
    return 0;
}

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t open;
    int go;
} gate;

static void *wait_at_gate(void *arg)
{
    gate *g = (gate *) arg;
    pthread_mutex_lock(&g->lock);
    while (!g->go) pthread_cond_wait(&g->open, &g->lock);
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* How many threads (the caller included, up to want) can live at once. */
static int creatable_threads(int want)
{
    pthread_t tid[MAX_THREADS];
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return 1;
    size_t stack = omp_stack_bytes();
    if (stack) pthread_attr_setstacksize(&attr, stack);
    gate g;
    pthread_mutex_init(&g.lock, NULL);
    pthread_cond_init(&g.open, NULL);
    g.go = 0;
    int made = 0;
    while (made < want - 1 && pthread_create(&tid[made], &attr, wait_at_gate, &g) == 0) made++;
    pthread_mutex_lock(&g.lock);
    g.go = 1;
    pthread_cond_broadcast(&g.open);
    pthread_mutex_unlock(&g.lock);
    for (int i = 0; i < made; i++) pthread_join(tid[i], NULL);
    pthread_cond_destroy(&g.open);
    pthread_mutex_destroy(&g.lock);
    pthread_attr_destroy(&attr);
    return made + 1;
}
#endif

/* Below this much work a second thread costs more than it saves (starting
 * it, and on a busy machine waiting for it). */
#define PARALLEL_MIN_FLOPS 4e6

int kc_threads_for(double flops, int nthreads)
{
    return flops < PARALLEL_MIN_FLOPS ? 1 : nthreads;
}

void kc_threads_init(void)
{
#if defined(_OPENMP) && !defined(_WIN32)
    pthread_atfork(NULL, NULL, note_fork);
#endif
}

int kc_threads_max(void) { return MAX_THREADS; }

/* An environment variable's first whole number >= 1 ("4", "4,2": OpenMP's
 * nested list), or 0 where it is unset or holds none. */
static int env_threads(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v) return 0;
    char *end;
    double n = strtod(v, &end);
    while (*end == ' ' || *end == '\t') end++;
    if (end == v || (*end && *end != ',') || !isfinite(n) || n < 1) return 0;
    return n >= MAX_THREADS ? MAX_THREADS : (int) n;
}

int kc_threads_request(double option, int cores)
{
    double n = option;
    if (!(n >= 1)) {  /* not set: the default */
        n = cores >= 1 ? cores : 1;
        const char *names[] = {"OMP_THREAD_LIMIT", "OMP_NUM_THREADS"};
        for (int i = 0; i < 2; i++) {
            int m = env_threads(names[i]);
            if (m >= 1 && m < n) n = m;
        }
    }
    return n >= MAX_THREADS ? MAX_THREADS : (int) n;
}

int kc_threads_cap(int requested)
{
#ifdef _OPENMP
    if (requested <= 1 || forked_child) return 1;
    int n = requested, procs = omp_get_num_procs(), limit = omp_get_thread_limit();
    if (n > procs) n = procs;
    if (n > limit) n = limit;
    if (n > MAX_THREADS) n = MAX_THREADS;
    if (n > ceiling) n = ceiling;
    if (n > verified) {
        int got = creatable_threads(n);
        if (got < n) {
            /* the pool already holds verified - 1 threads: that many stay usable */
            n = got > verified ? got : verified;
            ceiling = n;
        }
        verified = n;
    }
    return n < 1 ? 1 : n;
#else
    (void) requested;
    return 1;
#endif
}

double kc_seconds(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return 0.0;
#endif
}

/* ---- the tuner of repeated regions --------------------------------------- */

/* The other choice is tried while the time spent trying, counting the next
 * try as at least a time slice, stays within this share of the time spent
 * in all runs: on a busy machine one parallel try can cost a time slice
 * (measured: up to 40 ms for a 0.1 ms pass), on an idle one it costs next
 * to nothing.  So a problem solved in a few tenths of a second never tries
 * (on kernlab's spam data the tries doubled the time on a busy machine), a
 * longer one finds the faster choice within a second. */
#define EXPLORE_SHARE 0.02
#define TIME_SLICE 3e-3
/* A run that long on the measured choice (a kernel matrix filled 128 rows
 * at a time: a few dozen runs, most of a short fit) gets the other choice
 * tried at once, for two runs (the first is not measured), whatever the
 * share: waiting for the share, such a fit would end before trying, and an
 * idle machine's other cores would go unused.  Short runs (the passes, most
 * batches of rows) wait for the share.  (Filled on all threads untimed,
 * kernlab's spam took 0.34-0.53 s for its 36 runs beside a busy process on
 * 2 cores, each run waiting for a time slice, against 0.08-0.15 s on one
 * thread; OMP_WAIT_POLICY=passive made both 0.1 s, but R reads it at its
 * start, before any package can set it.) */
#define LONG_RUN 1e-3
/* One run moves a cost by at most this factor: a single run that met a page
 * fault or a time slice does not decide, a steady change soon does. */
#define MAX_STEP 4.0

/* KERNCLASS_TUNER=all or =one fixes the choice (for tests of both paths). */
void kc_tuner_init(kc_tuner *t, int nthreads)
{
    memset(t, 0, sizeof *t);
    t->running = -1;
    t->nthreads = nthreads < 1 ? 1 : nthreads;
    const char *fixed = getenv("KERNCLASS_TUNER");
    t->fixed = !fixed ? -1 : strcmp(fixed, "all") == 0 ? 1 : strcmp(fixed, "one") == 0 ? 0 : -1;
}

/* All threads once they have been measured faster; one thread until then.
 * A choice's first run is not measured (it may start the threads or touch
 * new memory), so a choice is measured from its second run on. */
static int tuner_best(const kc_tuner *t)
{
    return t->runs[1] >= 2 && t->runs[0] >= 2 && t->cost[1] < t->cost[0];
}

int kc_tuner_start(kc_tuner *t, double work)
{
    if (t->nthreads == 1 || work <= 0) return 1;
    if (t->fixed >= 0) return t->fixed ? t->nthreads : 1;
    int best = tuner_best(t);
    t->exploring = 0;
    double try_cost = t->cost[best] * work;
    if (try_cost < TIME_SLICE) try_cost = TIME_SLICE;
    if (t->runs[best] >= 2 &&
        (t->explored + try_cost <= EXPLORE_SHARE * t->spent ||
         (t->runs[!best] < 2 && t->cost[best] * work >= LONG_RUN)))
        t->exploring = 1;
    t->running = t->exploring ? !best : best;
    t->work = work;
    t->start = kc_seconds();
    return t->running ? t->nthreads : 1;
}

void kc_tuner_stop(kc_tuner *t)
{
    if (t->running < 0) return;
    int c = t->running;
    double seconds = kc_seconds() - t->start, cost = seconds / t->work;
    t->spent += seconds;
    if (t->exploring) t->explored += seconds;
    if (++t->runs[c] == 2) t->cost[c] = cost;
    else if (t->runs[c] > 2)  /* the recent past weighs most: loads come and go */
        t->cost[c] = 0.75 * t->cost[c] +
                     0.25 * (cost < MAX_STEP * t->cost[c] ? cost : MAX_STEP * t->cost[c]);
    t->running = -1;
}
