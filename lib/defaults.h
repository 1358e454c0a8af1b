/*
 * defaults.h - every default and every size limit that more than one
 * file needs, defined once.  The configuration (config.c,
 * docs/configuration.md), the loader and the BPF programs all take their
 * defaults from here; bpf/tracer.h includes it for the map sizes.
 * Plain preprocessor constants only: this file is compiled for BPF too.
 */
#ifndef TRACER_DEFAULTS_H
#define TRACER_DEFAULTS_H

/* ---- files and endpoints ---- */
#define TRACER_DEFAULT_CONFIG "/etc/tracer/tracer.conf"
#define TRACER_DEFAULT_SOCKET "/run/tracer/tracerd.sock"
#define TRACER_DEFAULT_PIN_DIR "/sys/fs/bpf/tracer"
#define TRACER_DEFAULT_RULES "/etc/tracer/tools.rules"
#define TRACER_DEFAULT_SINKS "file"
#define TRACER_DEFAULT_FILE "/var/lib/tracer/jobs.ndjson"
#define TRACER_DEFAULT_LOG_LEVEL "info"
#define TRACER_DEFAULT_SPOOL_DIR "/var/lib/tracer/spool"
#define TRACER_DEFAULT_CLICKHOUSE_URL "http://127.0.0.1:8123/"
#define TRACER_DEFAULT_CLICKHOUSE_DB "tracer"
#define TRACER_DEFAULT_DATALAKE "none"    /* datalake: summaries read from the file archive */
#define TRACER_DEFAULT_MODE "full"        /* mode: tracerd traces (reader: only answers) */
#define TRACER_DATALAKE_REPLY_MAX (64u << 20) /* bytes of one datalake answer */
#define TRACER_DATALAKE_TIMEOUT_MS 10000 /* one datalake query, connection included */
#define TRACER_DATALAKE_AGGREGATE_TIMEOUT_MS 30000 /* one of tracer report --clickhouse */
/* datalake_max_memory: what one datalake query may use on the server */
#define TRACER_DEFAULT_DATALAKE_MAX_MEMORY (1u << 30)
/* tracer sweep: its window, the groups it shows, the most one answer has */
#define TRACER_SWEEP_DEFAULT_SINCE "30d"
#define TRACER_SWEEP_DEFAULT_LIMIT 20
#define TRACER_SWEEP_LIMIT_MAX 10000
/* jobs a sweep of the archive file holds (about 200 bytes each), so that
 * one user's sweep in tracerd cannot take the node's memory */
#define TRACER_SWEEP_JOBS_MAX 1000000
/* tool entries (a tool in a job, about 40 bytes) a sweep --by tool of
 * the archive file holds */
#define TRACER_SWEEP_TOOLS_MAX 4000000
/* ... and idle hosts, from the archive (beyond: "truncated") */
#define TRACER_SWEEP_HOSTS_MAX 100000
/* the datalake's schema migrations (make install, the RPM), in order */
#define TRACER_DEFAULT_MIGRATIONS_DIR "/usr/share/tracer/clickhouse/migrations"
#define TRACER_CLICKHOUSE_SCHEMA 8 /* the schema version this tracer writes */
/* tracerd's memo of the jobs' node totals so far (jobinc.h): jobs held
 * (about 300 bytes each), and how long one is kept without a summary */
#define TRACER_JOBINC_MAX 4096
#define TRACER_JOBINC_IDLE_S (8 * 24 * 3600)
#define TRACER_DEFAULT_STATE_DIR "/var/lib/tracer/state" /* journal of open jobs */
#define TRACER_DEFAULT_CONTAINER_STORAGE "/var/lib/containers/storage" /* podman, CRI-O */
#define TRACER_DEFAULT_DOCKER_SOCKETS "/run/docker.sock" /* dockerd API, list endpoint only */
#define TRACER_DEFAULT_METRICS_ALLOW_REMOTE false /* metrics_listen: loopback only */
/* the docker CLI: only an exec of one of these files (by device and
 * inode) is a docker command */
#define TRACER_DEFAULT_DOCKER_CLIENTS "/usr/bin/docker,/usr/local/bin/docker"

/* ---- times ---- */
#define TRACER_DEFAULT_TIMEOUT_MS 200          /* a registrant's whole exchange */
#define TRACER_ARCHIVE_TIMEOUT_MS 30000        /* `tracer show/jobs` asking tracerd */
#define TRACER_ARCHIVE_LIMIT_MAX 1000         /* tracerd's newest-N listings: N at most (held in memory) */
#define TRACER_DEFAULT_JOBVIEW_MAX_STEPS TRACER_ARCHIVE_LIMIT_MAX /* summaries `tracer show JOB` rolls into one job */
#define TRACER_DEFAULT_JOBS_STEPS_READ 64      /* `tracer jobs --limit N` reads the newest N x this summaries */
#define TRACER_DEFAULT_SAMPLE_MS 1000          /* /proc and cgroup readings */
#define TRACER_DEFAULT_HTTP_TIMEOUT_MS 5000
#define TRACER_DEFAULT_METADATA_TIMEOUT_MS 300 /* one ECS/IMDS call */
#define TRACER_DEFAULT_RETRY_MAX_MS 60000      /* longest wait between two delivery attempts */
#define TRACER_RETRY_MIN_MS 500                /* first wait after a failed delivery */
#define TRACER_SHUTDOWN_DELIVERY_MS 3000       /* SIGTERM: longest wait for the sinks */
#define TRACER_CLICKHOUSE_INTERVAL_MS 1000     /* at most one insert per table per second */
#define TRACER_NOTES_WAIT_MS 1000              /* srun --tracer-notes: all its waiting */
#define TRACER_MAIL_BRIEF_TIMEOUT_S 10         /* tracer-mail: the verdict, all tries */

/* ---- telling the user (lib/brief.c) ---- */
#define TRACER_BRIEF_LINES 5                   /* tracer show --brief, tracer-mail */
#define TRACER_NOTES_LINES 3                   /* srun --tracer-notes */
#define TRACER_DEFAULT_MAIL_COMMAND "/usr/bin/mail" /* mail_command: Slurm's own default */

/* ---- delivery ---- */
#define TRACER_DEFAULT_SPOOL_MAX_BYTES (1024u << 20) /* spool_max_bytes */
#define TRACER_DEFAULT_FILE_MAX_BYTES (256u << 20)   /* file_max_bytes: rotate past this */
#define TRACER_DEFAULT_FILE_KEEP 5                   /* file_keep: rotated files kept */

/* ---- kernel side (BPF map sizes and settings) ---- */
#define TRACER_DEFAULT_ARGV_MAX 1024           /* argv bytes kept per exec */
#define TRACER_ARGV_MAX 4096                   /* ceiling of argv_max */
#define TRACER_REDACT_INPUT_MAX (4 * TRACER_ARGV_MAX) /* argv bytes one redaction reads */
#define TRACER_RINGBUF_BATCH 256               /* events handled between two looks at the sockets */
#define TRACER_PATH_MAX 1024                   /* executable path bytes */
#define TRACER_COMM_LEN 16                     /* the kernel's TASK_COMM_LEN */
#define TRACER_DEFAULT_RINGBUF_BYTES (4u << 20)
#define TRACER_DEFAULT_MAX_PROCS 65536         /* live tagged processes */
#define TRACER_MAX_TAGGED_CGROUPS 4096
#define TRACER_MAX_JOBS 4096                   /* open jobs with a share of the kernel's table */
#define TRACER_DEFAULT_MAX_PROCS_PER_JOB 8192  /* live forked processes of one job */
/* live forked processes of all the jobs one user registered (0: a
 * quarter of max_procs): always below the table, so no user fills it */
#define TRACER_DEFAULT_MAX_PROCS_PER_USER 0
#define TRACER_PROCS_USER_SHARE 4              /* ... the divisor of that quarter */
/* all non-root users together: max_procs less this share of it, kept
 * for root's jobs (Slurm steps), which no flood of users can take */
#define TRACER_PROCS_ROOT_RESERVE 4
#define TRACER_DEFAULT_MAX_JOBS_PER_USER 16    /* open jobs one non-root user registered */

/* ---- the job model ---- */
#define TRACER_DEFAULT_KEEP_PROCS 200          /* processes kept by name per job */
#define TRACER_NET_PEERS_MAX 4096              /* (scope, TCP endpoint) slots per job: power of 2 */

/* ---- analysis: flags, right-sizing, cost (docs/configuration.md) ---- */
#define TRACER_DEFAULT_ADVICE_MIN_RUNTIME_S 300 /* no advice below (jobstats: 5 min) */
#define TRACER_DEFAULT_FLAG_MEMORY_OVER_SHARE 0.7 /* peak under this share of the request */
#define TRACER_DEFAULT_FLAG_MEMORY_NEAR_SHARE 0.9 /* peak above this share of the limit */
#define TRACER_DEFAULT_FLAG_CPU_IDLE_SHARE 0.1   /* an allocated CPU busier than this is used */
#define TRACER_DEFAULT_FLAG_CPU_BOUND_SHARE 0.9  /* CPU time / wall of one thread */
#define TRACER_DEFAULT_FLAG_CONTENDED_SHARE 0.25 /* run-queue delay / (CPU + delay) */
#define TRACER_DEFAULT_FLAG_IO_BOUND_SHARE 0.5   /* off-CPU share of a process's wall */
/* where I/O wait is not measured (no delay accounting, no cgroup PSI):
 * io_bound needs this many storage bytes per second off the CPU; the
 * slowest disk doing 4 KiB random reads or fsyncs moves more, sleeping,
 * waiting on a child or a pipe, or loading a program far less */
#define TRACER_DEFAULT_FLAG_IO_BOUND_MIN_BYTES_PER_S 65536
#define TRACER_DEFAULT_FLAG_TIME_OVER_SHARE 0.5  /* wall under this share of the limit */
#define TRACER_DEFAULT_FLAG_SLEEPING_SHARE 0.05  /* a tool asleep, the job idle, this share of its wall */
#define TRACER_DEFAULT_STALL_THRESHOLD_S 600     /* no CPU and no I/O for this long */
#define TRACER_DEFAULT_MEM_HEADROOM 1.2          /* recommended memory = peak x this */
/* A memory request (the summary's recommendation, tracer tune's) is the
 * peak x the headroom rounded up to a step, never under the floor.  The
 * floor is one step: the analysis asks what the runs needed, not what a
 * scheduler accepts; Slurm takes --mem in MB and AWS Batch on EC2 a
 * MEMORY of 4 MiB and up, both under it, and a scheduler with a larger
 * minimum (Fargate: 512 MiB, more with more vCPUs) has it applied where
 * that scheduler's request is written (lib/fargate.c). */
#define TRACER_MEM_REQUEST_STEP_MIB 64
#define TRACER_MEM_REQUEST_MIN_MIB TRACER_MEM_REQUEST_STEP_MIB
#define TRACER_DEFAULT_FLAG_SLOWER_FACTOR 1.5    /* wall above p90 of earlier runs x this */
/* tracer tune (lib/tune.c, docs/tune.md): the request for a step's next run */
#define TRACER_TUNE_MEM_MARGIN TRACER_DEFAULT_MEM_HEADROOM /* memory = peak (p95 or fit) x this */
#define TRACER_TUNE_TIME_MARGIN 1.2     /* time = wall p95 x this, whole minutes */
#define TRACER_TUNE_OOM_FACTOR 1.5      /* an OOM'd run needed at least its allocation x this */
#define TRACER_TUNE_TIMEOUT_FACTOR 1.5  /* a timed-out run needed at least its limit x this */
#define TRACER_TUNE_FIT_MIN_R2 0.8      /* peak = a + b x input used from this R² up... */
#define TRACER_TUNE_FIT_MIN_RUNS 3      /* ...over this many runs of as many input sizes */
#define TRACER_TUNE_SINCE_S (30 * 86400) /* --since: runs that ended in the last 30 days */
#define TRACER_TUNE_MIN_RUNS 1          /* --min-runs: steps with fewer runs left out */
#define TRACER_TUNE_MAX_RUNS 100000     /* runs one tune reads (jobs, after the roll-up) */
/* AWS Fargate's on-demand list prices (us-east-1, Linux x86_64), per vCPU-
 * and per GB-hour of a task's size: a job recorded on Fargate has a cost
 * without any setting; other regions and Arm set their own */
#define TRACER_DEFAULT_PRICE_FARGATE_VCPU_HOUR 0.04048
#define TRACER_DEFAULT_PRICE_FARGATE_GB_HOUR 0.004445
#define TRACER_DEFAULT_FLAG_NETWORK_BOUND_SHARE 0.5 /* off-CPU share of the wall, network moving */
#define TRACER_DEFAULT_FLAG_NETWORK_MIN_BYTES (1u << 20) /* network bytes below: not network_bound */
#define TRACER_DEFAULT_IDLE_HOST_CPU_SHARE 0.05  /* host CPU busy share at most this... */
#define TRACER_DEFAULT_IDLE_HOST_AFTER_S 1800    /* ...with no job open, this long: idle_host */
/* where an EC2 instance names itself (sys_vendor "Amazon EC2",
 * board_asset_tag its id, product_name its type): read once at start */
#define TRACER_DMI_DIR "/sys/devices/virtual/dmi/id"
#define TRACER_DEFAULT_FLAG_GPU_IDLE_SHARE 0.05  /* an allocated GPU busier than this is used */
#define TRACER_DEFAULT_FLAG_GPU_MEMORY_OVER_SHARE 0.5 /* GPU memory peak under this share */
#define TRACER_DEFAULT_FLAG_GPU_UNDERUSED_SHARE 0.5 /* GPU busy under this, CPU side bound */

/* ---- GPUs (NVML, opened at run time) ---- */
#define TRACER_DEFAULT_GPU_ACCOUNTING "leave"    /* gpu_accounting: enable|leave */
#define TRACER_NVML_LIB "libnvidia-ml.so.1"
#define TRACER_GPU_ANSWER_WAIT_MS 2000           /* a closing job waits this for GPU answers */
#define TRACER_GPU_HUNG_MS 5000                  /* an NVML call longer than this: hung */

/* ---- identifiers ---- */
#define TRACER_JOB_UID_LEN 64   /* a job's uid, NUL included */
#define TRACER_JOIN_KEY_LEN 384 /* identity_join_key(): "slurm:<job>.<step>"... */

#endif
