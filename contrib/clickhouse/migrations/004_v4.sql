-- 004_v4.sql - version 4: the site's sweep over a million jobs, and the
-- sampled concurrency for tune.  `tracer sweep` folded the summaries of
-- a window level by level (per job and node, per job, per group) over
-- tracer.jobs: strings carried through million-key GROUP BYs, and rows
-- delivered twice folded by LIMIT 1 BY summary_id.  Version 4 adds
-- tracer.job_use, a narrow all-numeric copy of what the sweep needs, one
-- row per summary, filled by a materialized view on every insert into
-- jobs: hashed keys of the job and of its node, the summary's hash (a
-- summary delivered twice makes two identical rows that FINAL folds by
-- streaming merge, sorted by job, node and summary), the times, the
-- allocation, CPU time, peak, idle GPUs and the TIMEOUT/OOM bits; and
-- the group columns as LowCardinality, only to name the groups.
--
-- jobs gains conc_p95, the summary's sampled CPU concurrency p95
-- (allocation_use.concurrency.p95; 0 when absent): `tracer tune` reads
-- the CPUs a run needed from it, as it does from the archive.
--
-- The existing rows are copied into job_use once the view exists: a row
-- inserted meanwhile arrives twice, identical, and folds like any
-- duplicate.  Written for ClickHouse 18.16 and later; this file runs
-- once, `tracer datalake migrate` records it.

SET allow_experimental_low_cardinality_type = 1;

ALTER TABLE tracer.jobs
    ADD COLUMN conc_p95 UInt32;                       -- allocation_use.concurrency.p95

-- One row per summary of a job (host records left out): all a sweep
-- reads.  jh: the job (scheduler, cluster, job id or job uid), as
-- lib/jobview.c groups summaries; nh: the job on one node; sh: the
-- summary.
CREATE TABLE IF NOT EXISTS tracer.job_use
(
    end             DateTime,
    jh              UInt64,
    nh              UInt64,
    sh              UInt64,
    uid             UInt32,
    user            LowCardinality(String),
    account         LowCardinality(String),
    partition       LowCardinality(String),
    pipeline        LowCardinality(String),
    host            LowCardinality(String),
    jk              String,                   -- job id, else job uid: names the worst job
    start_ns        UInt64,
    first_ns        UInt64,                   -- start, or the scheduler's job start when earlier
    end_ns          UInt64,
    alloc_cpus      UInt32,
    cpu_s           Float64,
    alloc_mem_bytes UInt64,
    mem_peak_bytes  UInt64,
    gpus_idle       UInt32,
    limits          UInt8                     -- 1: TIMEOUT, 2: OUT_OF_MEMORY or an OOM kill
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(end)
ORDER BY (jh, nh, sh);

CREATE MATERIALIZED VIEW IF NOT EXISTS tracer.job_use_mv TO tracer.job_use AS
SELECT end,
    cityHash64(scheduler, cluster, if(job_id != '', job_id, job)) AS jh,
    cityHash64(jh, host) AS nh, cityHash64(summary_id) AS sh, uid,
    user, account, partition, pipeline, host, if(job_id != '', job_id, job) AS jk,
    start_ns,
    if(toUInt32(job_start) > 0, least(start_ns, toUInt64(toUInt32(job_start)) * 1000000000),
       start_ns) AS first_ns,
    end_ns, alloc_cpus, cpu_s, alloc_mem_bytes, mem_peak_bytes, gpus_idle,
    toUInt8((state = 'TIMEOUT') + 2 * (state = 'OUT_OF_MEMORY' OR oom_kills > 0)) AS limits
FROM tracer.jobs
WHERE scheduler != 'host';

-- The rows already there.
INSERT INTO tracer.job_use
SELECT end,
    cityHash64(scheduler, cluster, if(job_id != '', job_id, job)) AS jh,
    cityHash64(jh, host) AS nh, cityHash64(summary_id) AS sh, uid,
    user, account, partition, pipeline, host, if(job_id != '', job_id, job) AS jk,
    start_ns,
    if(toUInt32(job_start) > 0, least(start_ns, toUInt64(toUInt32(job_start)) * 1000000000),
       start_ns) AS first_ns,
    end_ns, alloc_cpus, cpu_s, alloc_mem_bytes, mem_peak_bytes, gpus_idle,
    toUInt8((state = 'TIMEOUT') + 2 * (state = 'OUT_OF_MEMORY' OR oom_kills > 0)) AS limits
FROM tracer.jobs
WHERE scheduler != 'host';

INSERT INTO tracer.schema_version SELECT 4, now(), 'v4: job_use for the sweep, conc_p95';
