-- 006_v6.sql - version 6: tracer.job_view without FINAL.  Version 2's
-- view folded rows delivered twice with FINAL, which merges every row of
-- tracer.jobs by its sorting key before any WHERE applies: one job's
-- view took over a second at 130,000 jobs.  Version 6 folds them by
-- summary_id in a GROUP BY (a row delivered twice is the same row: any()
-- of its columns is the row), so that a WHERE on the job's cluster and
-- job_id can reach tracer.jobs itself (on 18.16 with
-- enable_optimize_predicate_expression = 1) and the view then groups the
-- job's few rows only.  The view's columns and answers are version 2's.
-- Written for ClickHouse 18.16 and later; this file runs once, `tracer
-- datalake migrate` records it.

SET allow_experimental_low_cardinality_type = 1;

DROP TABLE IF EXISTS tracer.job_view;

-- One row per (cluster, job_id): a Slurm job's steps on all its nodes.
-- Allocation is counted once per node (the largest of that node's
-- steps, summed over nodes), CPU time over every step, memory as the
-- largest peak of one node, the state as the worst of any step.
-- Summaries without a job_id (tracer run) are left out.
CREATE VIEW IF NOT EXISTS tracer.job_view AS
SELECT
    cluster,
    job_id,
    any(n_user) AS user,
    any(n_account) AS account,
    any(n_partition) AS partition,
    any(n_pipeline) AS pipeline,
    min(n_start) AS start,
    max(n_end) AS end,
    toUInt32(count()) AS nodes,
    sum(n_steps) AS summaries,
    sum(n_cpu_s) AS cpu_s,
    sum(n_alloc_cpus) AS alloc_cpus,
    sum(n_alloc_mem_bytes) AS alloc_mem_bytes,
    max(n_mem_peak_bytes) AS mem_peak_bytes,
    arrayElement(['', 'COMPLETED', 'UNKNOWN', 'CANCELLED', 'TIMEOUT', 'FAILED', 'OUT_OF_MEMORY'],
                 max(n_worst) + 1) AS state
FROM
(
    SELECT
        cluster,
        job_id,
        host,
        any(s_user) AS n_user,
        any(s_account) AS n_account,
        any(s_partition) AS n_partition,
        any(s_pipeline) AS n_pipeline,
        min(s_start) AS n_start,
        max(s_end) AS n_end,
        count() AS n_steps,
        sum(s_cpu_s) AS n_cpu_s,
        max(s_alloc_cpus) AS n_alloc_cpus,
        max(s_alloc_mem_bytes) AS n_alloc_mem_bytes,
        max(s_mem_peak_bytes) AS n_mem_peak_bytes,
        max(s_worst) AS n_worst
    FROM
    (
        -- one row per summary: a row delivered twice counts once
        SELECT
            cluster,
            job_id,
            host,
            any(user) AS s_user,
            any(account) AS s_account,
            any(partition) AS s_partition,
            any(pipeline) AS s_pipeline,
            any(start) AS s_start,
            any(end) AS s_end,
            any(cpu_s) AS s_cpu_s,
            any(alloc_cpus) AS s_alloc_cpus,
            any(alloc_mem_bytes) AS s_alloc_mem_bytes,
            any(mem_peak_bytes) AS s_mem_peak_bytes,
            any(multiIf(state = 'OUT_OF_MEMORY', 6, state = 'FAILED', 5, state = 'TIMEOUT', 4,
                        state = 'CANCELLED', 3, state = 'UNKNOWN', 2, state = 'COMPLETED', 1, 0)) AS s_worst
        FROM tracer.jobs
        WHERE job_id != ''
        GROUP BY cluster, job_id, host, summary_id
    )
    GROUP BY cluster, job_id, host
)
GROUP BY cluster, job_id;

INSERT INTO tracer.schema_version SELECT 6, now(), 'v6: job_view without FINAL';
