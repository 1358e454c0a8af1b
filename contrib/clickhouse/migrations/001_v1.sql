-- 001_v1.sql - tracer's datalake, version 1: the tables every node's
-- tracerd inserts into (sink "clickhouse", docs/clickhouse.md).  The
-- migrations of this directory, applied in order, make the current
-- schema; `tracer datalake migrate` applies those a server lacks and
-- records each in tracer.schema_version.  By hand, on an empty server:
--
--   cat contrib/clickhouse/migrations/*.sql | clickhouse-client --multiquery
--
-- Written for ClickHouse 18.16 (Debian 12) and later: nothing here needs
-- a newer server.  Every table is a ReplacingMergeTree whose sorting key
-- ends with summary_id (and the row's place in its summary): a batch that
-- a node sends twice (its reply was lost) leaves no visible duplicate
-- when queried with FINAL.  Keys go from low to high cardinality;
-- partitions are months of the job's end.
--
-- Statements end with ";" at the end of a line: the CLI sends them one
-- at a time over the HTTP interface.

-- LowCardinality is experimental before 19.x and needs this to be
-- created; later servers accept the setting and ignore it.
SET allow_experimental_low_cardinality_type = 1;

CREATE DATABASE IF NOT EXISTS tracer;

-- The schema's version: the highest version here (a datalake made
-- before this table is version 1).
CREATE TABLE IF NOT EXISTS tracer.schema_version
(
    version         UInt32,
    applied         DateTime,
    description     String
)
ENGINE = ReplacingMergeTree
ORDER BY version;

-- One row per job summary.
CREATE TABLE IF NOT EXISTS tracer.jobs
(
    summary_id      String,
    job             String,
    schema          LowCardinality(String),
    host            LowCardinality(String),
    scheduler       LowCardinality(String),
    cluster         LowCardinality(String),
    partition       LowCardinality(String),   -- Slurm partition / AWS Batch queue
    user            LowCardinality(String),
    uid             UInt32,
    job_id          String,
    step_id         String,
    array_job_id    String,
    pipeline        LowCardinality(String),
    run_id          String,
    run_name        String,
    task_name       String,
    start           DateTime,
    end             DateTime,
    start_ns        UInt64,
    end_ns          UInt64,
    wall_s          Float64,
    exit_code       Nullable(Int32),
    exit_signal     Nullable(Int32),
    cpu_s           Float64,
    user_s          Float64,
    sys_s           Float64,
    cpu_efficiency  Nullable(Float64),
    alloc_cpus      UInt32,                   -- 0: no allocation (the host's CPUs apply)
    alloc_mem_bytes UInt64,
    host_cpus       UInt32,
    mem_peak_bytes  UInt64,
    mem_efficiency  Nullable(Float64),
    rchar           UInt64,
    wchar           UInt64,
    read_bytes      UInt64,
    write_bytes     UInt64,
    processes       UInt64,
    oom_kills       UInt64,
    events_dropped  UInt64,
    tools           UInt32,
    flags           UInt32,
    source          LowCardinality(String),
    tracer_version  LowCardinality(String),
    labels          String,                   -- JSON object
    gpu_counting    LowCardinality(String),   -- accounting, sampled, none; '' no GPU
    gpus_allocated  String,                   -- as allocated: "0,1", UUIDs
    gpus_used       UInt32,
    gpus_idle       UInt32,                   -- allocated, no process of the job on it
    gpu_memory_peak_bytes UInt64,
    gpu_time_s      Float64,                  -- its processes' GPU context time
    gpu_busy_s      Float64,                  -- ... times their GPU utilisation
    gpu_energy_j    Nullable(Float64)         -- GPUs it had alone
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(end)
ORDER BY (cluster, partition, user, host, end, summary_id);

-- One row per tool of a job (summary "tools").
CREATE TABLE IF NOT EXISTS tracer.tools
(
    summary_id      String,
    end             DateTime,                 -- the job's end
    host            LowCardinality(String),
    user            LowCardinality(String),
    partition       LowCardinality(String),
    pipeline        LowCardinality(String),
    run_id          String,
    task_name       String,
    tool            LowCardinality(String),
    path            String,
    interpreter     LowCardinality(String),
    processes       UInt64,
    cpu_s           Float64,
    user_s          Float64,
    sys_s           Float64,
    wall_s          Float64,                  -- first start to last end
    peak_rss_bytes  UInt64,
    rchar           UInt64,
    wchar           UInt64,
    read_bytes      UInt64,
    write_bytes     UInt64,
    first_start     DateTime,
    last_end        DateTime,
    oom_kills       UInt64,
    failed          UInt64,                   -- processes that did not exit 0
    alloc_cpus      UInt32,
    job_wall_s      Float64,
    gpu_memory_peak_bytes UInt64,
    gpu_time_s      Float64,
    gpu_busy_s      Float64
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(end)
ORDER BY (tool, user, end, summary_id, path);

-- One row per process kept in a summary's process tree.
CREATE TABLE IF NOT EXISTS tracer.processes
(
    summary_id      String,
    end             DateTime,                 -- the job's end
    host            LowCardinality(String),
    user            LowCardinality(String),
    partition       LowCardinality(String),
    pipeline        LowCardinality(String),
    run_id          String,
    task_name       String,
    tool            LowCardinality(String),
    pid             UInt32,
    ppid            UInt32,
    comm            String,
    exe             String,
    cmdline         String,
    start           DateTime,
    start_ms        UInt64,
    wall_s          Float64,
    cpu_s           Float64,
    user_s          Float64,
    sys_s           Float64,
    peak_rss_bytes  UInt64,
    rchar           UInt64,
    wchar           UInt64,
    read_bytes      UInt64,
    write_bytes     UInt64,
    exit_code       Nullable(Int32),
    signal          Nullable(Int32),
    oom_killed      UInt8,
    outlived        UInt8
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(end)
ORDER BY (user, tool, end, summary_id, pid, start_ms);

-- One row per flag a summary raised (summary "flags"), when it has any.
CREATE TABLE IF NOT EXISTS tracer.flags
(
    summary_id      String,
    end             DateTime,
    host            LowCardinality(String),
    user            LowCardinality(String),
    partition       LowCardinality(String),
    pipeline        LowCardinality(String),
    run_id          String,
    task_name       String,
    n               UInt16,                   -- place in the summary's list
    flag            LowCardinality(String),
    severity        LowCardinality(String),
    message         String,
    evidence        String                    -- JSON
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(end)
ORDER BY (flag, severity, user, end, summary_id, n);

INSERT INTO tracer.schema_version SELECT 1, now(), 'v1: jobs, tools, processes, flags';
