/* Threads (threads.c): the policy of the whole engine. */
#ifndef KERNCLASS_THREADS_H
#define KERNCLASS_THREADS_H

void kc_threads_init(void);          /* at load time */
/* The threads asked for: option (kernclass.threads; NA or < 1: not set),
 * else cores cut by OMP_THREAD_LIMIT and OMP_NUM_THREADS; at most the
 * engine's limit. */
int kc_threads_request(double option, int cores);
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

#endif
