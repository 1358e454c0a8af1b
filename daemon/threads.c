/*
 * threads.c - starting tracerd's helper threads (threads.h).
 */
#include "threads.h"

#include <signal.h>

int threads_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int rc;

	/* the new thread inherits the mask in force when it is created */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
