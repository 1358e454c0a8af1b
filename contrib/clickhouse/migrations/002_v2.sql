-- 002_v2.sql - version 2: the cluster's shared view.  tracer.jobs keeps
-- every column of version 1 and gains the scheduler's facts (account,
-- qos, submission, request), the job's state, network and block I/O,
-- cost, the recommendation, the container and `summary`: the whole
-- summary JSON as tracerd produced it, which the read path renders like
-- a local summary.  tracer.tools gains cluster, job_id and step_id (a
-- tool's totals across the steps of a job), and tracer.job_view rolls
-- the summaries of one (cluster, job_id) up into one row.
--
-- ALTER ... ADD COLUMN: an existing version 1 keeps its rows; old rows
-- read the new columns' defaults ('' / 0 / NULL, summary '').  Written for
-- ClickHouse 18.16 and later (no ADD COLUMN IF NOT EXISTS there: this
-- file runs once, `tracer datalake migrate` records it).

SET allow_experimental_low_cardinality_type = 1;

-- A version 1 made before tracer.schema_version existed.
CREATE TABLE IF NOT EXISTS tracer.schema_version
(
    version         UInt32,
    applied         DateTime,
    description     String
)
ENGINE = ReplacingMergeTree
ORDER BY version;

ALTER TABLE tracer.jobs
    ADD COLUMN state LowCardinality(String),          -- COMPLETED, FAILED, OUT_OF_MEMORY, ...
    ADD COLUMN account LowCardinality(String),
    ADD COLUMN qos LowCardinality(String),
    ADD COLUMN array_task_id Nullable(Int64),
    ADD COLUMN submit DateTime,                       -- 0 (1970) when not known
    ADD COLUMN job_start DateTime,                    -- the whole job's start (scheduler)
    ADD COLUMN queue_wait_s Nullable(Float64),
    ADD COLUMN node_list String,                      -- Slurm hostlist, "n[1-2]"
    ADD COLUMN req_cpus UInt32,
    ADD COLUMN req_mem_bytes UInt64,
    ADD COLUMN req_gpus UInt32,
    ADD COLUMN req_nodes UInt32,
    ADD COLUMN alloc_nodes UInt32,
    ADD COLUMN time_limit_s Nullable(UInt64),
    ADD COLUMN net_rx_bytes UInt64,
    ADD COLUMN net_tx_bytes UInt64,
    ADD COLUMN block_read_bytes UInt64,
    ADD COLUMN block_write_bytes UInt64,
    ADD COLUMN cost_total Nullable(Float64),
    ADD COLUMN cost_unused Nullable(Float64),
    ADD COLUMN rec_cpus Nullable(UInt32),
    ADD COLUMN rec_mem_bytes Nullable(UInt64),
    ADD COLUMN rec_time_s Nullable(UInt64),
    ADD COLUMN container String,                      -- image (or id) of its container
    ADD COLUMN summary String;                        -- the whole summary, one line of JSON

ALTER TABLE tracer.tools
    ADD COLUMN cluster LowCardinality(String),
    ADD COLUMN job_id String,
    ADD COLUMN step_id String;

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
        any(user) AS n_user,
        any(account) AS n_account,
        any(partition) AS n_partition,
        any(pipeline) AS n_pipeline,
        min(start) AS n_start,
        max(end) AS n_end,
        count() AS n_steps,
        sum(cpu_s) AS n_cpu_s,
        max(alloc_cpus) AS n_alloc_cpus,
        max(alloc_mem_bytes) AS n_alloc_mem_bytes,
        max(mem_peak_bytes) AS n_mem_peak_bytes,
        max(multiIf(state = 'OUT_OF_MEMORY', 6, state = 'FAILED', 5, state = 'TIMEOUT', 4,
                    state = 'CANCELLED', 3, state = 'UNKNOWN', 2, state = 'COMPLETED', 1, 0)) AS n_worst
    FROM tracer.jobs FINAL
    WHERE job_id != ''
    GROUP BY cluster, job_id, host
)
GROUP BY cluster, job_id;

INSERT INTO tracer.schema_version SELECT 2, now(), 'v2: job state, scheduler facts, summary, job_view';
