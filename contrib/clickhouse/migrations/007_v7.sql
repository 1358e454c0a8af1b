-- 007_v7.sql - version 7: `tracer sweep` without the per-(job, node)
-- GROUP BY.  Version 4's sweep folded every (job, node) of the window
-- (its largest allocation, its CPU time, its unused memory) and then
-- every job: two GROUP BYs of a million keys.  Version 7 keeps, in each
-- summary's row, what the summary adds to its job's totals on its node
-- (node_increments, worked out by tracerd: lib/jobinc.c), so that the
-- sum of a node's rows is its totals and the sweep groups per job only,
-- and not at all the rows of a job known to be one summary:
--   inc_kind              0: none (an older tracer, or tracerd could not
--                         be sure it saw the job's earlier summaries on
--                         the node): the sweep folds such a job from its
--                         rows as version 4 did; 1: tracerd's;
--                         2: worked out here for the rows already there
--   inc_single            1: the job's only summary
--   inc_cpus, inc_cpu_s, inc_unused_mem_bytes (may be negative),
--   inc_gpus_idle         the increments
-- in tracer.jobs and tracer.job_use, whose view copies them.
--
-- The rows already in job_use get increments by the per-node rule: the
-- node's totals (over its distinct summaries) on the row of the node's
-- smallest summary hash, zeros on the others; inc_single 0 (a job still
-- running may have more to come).  They are copied with inc_kind 2, the
-- new view first so that no row inserted meanwhile is missed (a row both
-- the view and the copy wrote keeps the view's: the copy leaves out what
-- already has increments), then the originals (inc_kind 0) of the rows
-- copied are deleted; until that mutation is done, a job with a row of
-- inc_kind 0 is folded from its rows, exactly.  Written for ClickHouse
-- 18.16 and later; this file runs once, `tracer datalake migrate`
-- records it.

SET allow_experimental_low_cardinality_type = 1;

ALTER TABLE tracer.jobs
    ADD COLUMN inc_kind UInt8,
    ADD COLUMN inc_single UInt8,
    ADD COLUMN inc_cpus UInt32,
    ADD COLUMN inc_cpu_s Float64,
    ADD COLUMN inc_unused_mem_bytes Int64,
    ADD COLUMN inc_gpus_idle UInt32;

ALTER TABLE tracer.job_use
    ADD COLUMN inc_kind UInt8,
    ADD COLUMN inc_single UInt8,
    ADD COLUMN inc_cpus UInt32,
    ADD COLUMN inc_cpu_s Float64,
    ADD COLUMN inc_unused_mem_bytes Int64,
    ADD COLUMN inc_gpus_idle UInt32;

-- The view with the increments, under a new name (18.16 renames no
-- view), before the old one goes: a row inserted in between arrives
-- twice (once without increments), which the sweep folds exactly.
CREATE MATERIALIZED VIEW IF NOT EXISTS tracer.job_use_v7_mv TO tracer.job_use AS
SELECT end,
    cityHash64(scheduler, cluster, if(job_id != '', job_id, job)) AS jh,
    cityHash64(jh, host) AS nh, cityHash64(summary_id) AS sh, uid,
    user, account, partition, pipeline, host, if(job_id != '', job_id, job) AS jk,
    start_ns,
    if(toUInt32(job_start) > 0, least(start_ns, toUInt64(toUInt32(job_start)) * 1000000000),
       start_ns) AS first_ns,
    end_ns, alloc_cpus, cpu_s, alloc_mem_bytes, mem_peak_bytes, gpus_idle,
    toUInt8((state = 'TIMEOUT') + 2 * (state = 'OUT_OF_MEMORY' OR oom_kills > 0)) AS limits,
    inc_kind, inc_single, inc_cpus, inc_cpu_s, inc_unused_mem_bytes, inc_gpus_idle
FROM tracer.jobs
WHERE scheduler != 'host';

DROP TABLE IF EXISTS tracer.job_use_mv;

-- The rows already there, with increments by the per-node rule.
INSERT INTO tracer.job_use
SELECT end, jh, nh, sh, uid, user, account, partition, pipeline, host, jk, start_ns, first_ns,
    end_ns, alloc_cpus, cpu_s, alloc_mem_bytes, mem_peak_bytes, gpus_idle, limits,
    toUInt8(2), toUInt8(0),
    toUInt32(if(sh = n_sh, n_cpus, 0)), if(sh = n_sh, n_cpu_s, 0),
    toInt64(if(sh = n_sh, n_unused, 0)), toUInt32(if(sh = n_sh, n_gpus, 0))
FROM tracer.job_use
ANY INNER JOIN
(
    SELECT nh, min(sh) AS n_sh, max(alloc_cpus) AS n_cpus,
        if(max(alloc_cpus) > 0, sum(cpu_s), 0) AS n_cpu_s,
        if(max(alloc_mem_bytes) > max(mem_peak_bytes),
           max(alloc_mem_bytes) - max(mem_peak_bytes), 0) AS n_unused,
        max(gpus_idle) AS n_gpus
    FROM (SELECT nh, sh, alloc_cpus, cpu_s, alloc_mem_bytes, mem_peak_bytes, gpus_idle
          FROM tracer.job_use
          WHERE inc_kind = 0 AND sh NOT IN (SELECT sh FROM tracer.job_use WHERE inc_kind = 1)
          LIMIT 1 BY sh)
    GROUP BY nh
) USING nh
WHERE inc_kind = 0 AND sh NOT IN (SELECT sh FROM tracer.job_use WHERE inc_kind = 1);

-- The originals of the rows copied (a mutation: done in the background).
ALTER TABLE tracer.job_use DELETE
WHERE inc_kind = 0 AND sh IN (SELECT sh FROM tracer.job_use WHERE inc_kind = 2);

INSERT INTO tracer.schema_version SELECT 7, now(), 'v7: node increments for the sweep';
