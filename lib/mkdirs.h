/*
 * mkdirs.h - mkdir -p: the directories tracerd and the sinks make (pin
 * directory, state directory, spool, a file sink's directory).
 */
#ifndef TRACER_MKDIRS_H
#define TRACER_MKDIRS_H

#include <stddef.h>
#include <sys/types.h>

/* Make path and its missing parents, each one made with mode (those
 * that exist are left as they are): 0, or -1 with "mkdir DIR: reason"
 * in err. */
int mkdirs(const char *path, mode_t mode, char *err, size_t errlen);

#endif
