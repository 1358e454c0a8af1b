-- 003_v3.sql - version 3: reads at a million jobs.  Version 2's
-- tracer.jobs is sorted by cluster, partition, user, host: one user's
-- month lies in thousands of granules, and reading their summaries took
-- seconds.  Version 3 sorts it by user, then end (a user's month is a
-- few neighbouring granules) and adds tracer.job_keys, a narrow table
-- filled by a materialized view, that finds a job's rows by job id, job
-- uid, summary id or task name without reading tracer.jobs at all.
--
-- ClickHouse cannot change a table's sorting key, so the table is made
-- anew with every column of version 2 and swapped in by name, then the
-- old rows are copied into it (the view fills tracer.job_keys for them)
-- and the old table is dropped: inserts that arrive meanwhile go to the
-- new table, so none is lost; reads see the old rows back once the copy
-- is done.  The copy needs the jobs table's size again on disk for the
-- while.  Written for ClickHouse 18.16 and later; this file runs once,
-- `tracer datalake migrate` records it.

SET allow_experimental_low_cardinality_type = 1;

CREATE TABLE tracer.jobs_v3 AS tracer.jobs
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(end)
ORDER BY (user, end, summary_id)
SETTINGS index_granularity = 256;

-- Columns the per-pipeline and per-site analyses read besides version
-- 2's: the allocation's own time limit (time_limit_s is the request's
-- when there is one) and the ids of the flags the summary raised.
ALTER TABLE tracer.jobs_v3
    ADD COLUMN alloc_time_limit_s Nullable(UInt64),
    ADD COLUMN flag_ids Array(String);

RENAME TABLE tracer.jobs TO tracer.jobs_v2, tracer.jobs_v3 TO tracer.jobs;

-- One row per (name a job is asked by, summary): job id, array job id,
-- job uid, summary id, task name.  `tracer show NAME` looks its rows up
-- here by the sorting key, then reads only their granules of jobs by
-- (user, end).
CREATE TABLE IF NOT EXISTS tracer.job_keys
(
    key             String,
    cluster         LowCardinality(String),
    user            LowCardinality(String),
    end             DateTime,
    summary_id      String
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(end)
ORDER BY (key, cluster, summary_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS tracer.job_keys_mv TO tracer.job_keys AS
SELECT key, cluster, user, end, summary_id
FROM tracer.jobs
ARRAY JOIN arrayFilter(k -> k != '', [job_id, array_job_id, job, summary_id, task_name]) AS key;

-- The rows of version 2, into the new table (and through the view into
-- job_keys).
INSERT INTO tracer.jobs SELECT *, CAST(NULL AS Nullable(UInt64)), emptyArrayString() FROM tracer.jobs_v2;

DROP TABLE tracer.jobs_v2;

INSERT INTO tracer.schema_version SELECT 3, now(), 'v3: jobs sorted by user and end, job_keys';
