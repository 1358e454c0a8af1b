/*
 * threads.h - starting tracerd's helper threads.  Signals are the loop's
 * (signalfd): a helper thread must never take one, so it starts with
 * every signal blocked.
 */
#ifndef TRACERD_THREADS_H
#define TRACERD_THREADS_H

#include <pthread.h>

/* pthread_create with every signal blocked in the new thread; 0 or the
 * error number. */
int threads_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
