/*
 * caps.h - tracerd gives up, once its programs are loaded and attached
 * and its socket listens, the capabilities it needed only for that.
 * Capabilities belong to threads: each call changes the calling thread
 * (and the threads it starts later).
 */
#ifndef TRACERD_CAPS_H
#define TRACERD_CAPS_H

#include <stddef.h>
#include <stdint.h>

/* SECBIT_NOROOT and SECBIT_NO_CAP_AMBIENT_RAISE, locked, on the calling
 * thread (the threads it starts inherit them): a program tracerd runs
 * (squeue) gets no capability for being uid 0.  Needs CAP_SETPCAP unless
 * already set.  0, or -1 with err. */
int caps_secure_exec(char *err, size_t errlen);

/* The event loop's thread: keep only what the running daemon needs
 * (caps.c says why each), drop the rest from the effective, permitted,
 * inheritable, ambient and bounding sets.  0, or -1 with err. */
int caps_drop_for_loop(char *err, size_t errlen);

/* A helper thread that needs no capability at all. */
int caps_drop_all(char *err, size_t errlen);
/* The spool writer and the sinks: CAP_CHOWN only (the file sink gives
 * the archive to admin_group, at creation and at each rotation). */
int caps_drop_for_delivery(char *err, size_t errlen);

#endif
