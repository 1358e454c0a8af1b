/*
 * client.h - the registrant side of the tracerd protocol, shared by the
 * SPANK plugin, tracer-wrap and `tracer run`.
 *
 * Every call is bounded by a hard timeout (the whole exchange: connect,
 * send, reply) and never blocks the caller longer; on any failure it
 * returns -1 with a one-line reason in err, and the caller goes on
 * untagged.  No call touches signals, the environment or global state.
 */
#ifndef TRACER_CLIENT_H
#define TRACER_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "defaults.h"
#include "identity.h"


/*
 * Register the CALLING PROCESS (tracerd reads the pid from SO_PEERCRED)
 * as a process of the job named by id.  stays: the caller stays the
 * job's parent and is its registrant, not its work (proto.h).  On
 * success the job's uid is in job_uid (tasks of one Slurm step share it)
 * and 0 is returned.
 */
int client_register(const char *socket_path, int timeout_ms,
		    const struct tracer_identity *id, bool stays, char *job_uid,
		    size_t job_uid_len, char *err, size_t errlen);

/* One task of the job ended with this wait(2) status (SPANK task_exit). */
int client_task_exit(const char *socket_path, int timeout_ms,
		     const char *job_uid, int wait_status, char *err,
		     size_t errlen);

/*
 * The job is over (the registrant's child exited, the Slurm step ended):
 * tracerd writes the summary.  wait_status < 0 means "unknown".
 */
int client_end(const char *socket_path, int timeout_ms, const char *job_uid,
	       int wait_status, char *err, size_t errlen);

/*
 * Generic exchange: send req (one JSON object), return the parsed reply
 * object in *reply (caller frees with cJSON_Delete).  Used by the above
 * and by `tracer status`.
 */
int client_request(const char *socket_path, int timeout_ms, const cJSON *req,
		   cJSON **reply, char *err, size_t errlen);

/*
 * A streamed reply (archive queries, proto.h): send req, give every line
 * before the last to fn as a parsed object (fn owns it; non-zero from fn
 * stops), and the last line's object ({"ok":true,...})
 * to *last (caller frees).  The whole exchange is bounded by timeout_ms.
 * Returns 0; -1 with a reason in err; -2 when nothing answers at the
 * socket (tracerd is not running).
 */
typedef int (*tracer_line_fn)(cJSON *o, void *ctx);
int client_request_stream(const char *socket_path, int timeout_ms, const cJSON *req,
			  tracer_line_fn fn, void *ctx, cJSON **last, char *err,
			  size_t errlen);

#endif
