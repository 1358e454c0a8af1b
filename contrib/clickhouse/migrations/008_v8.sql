-- 008_v8.sql - version 8: the tools of each summary in its row.
-- Version 7 shared each job's waste among its tools by joining, per
-- job, the rows of tracer.tools (several a summary, found through
-- job_use by their summary's hash): over 10 s for a million jobs; and
-- a query per tool over tracer.tools had to keep one row per (summary,
-- tool, path) (LIMIT 1 BY three strings), 1.6 s for 4.4 million rows.
-- Version 8 keeps each summary's tools, by name (a tool's paths are one
-- tool), in its row of tracer.jobs and tracer.job_use, so that such
-- questions read job_use alone, one row per summary:
--   tool_names              the summary's tools (tracer.tools' tool)
--   tool_cpu_s              their CPU seconds (the paths' summed)
--   tool_wall_s             the longest of their paths' wall times
--   tool_processes          their processes (summed)
--   tools_kind              0: none (a row from before version 8), 1:
--                           the sink's, 2: worked out here from
--                           tracer.tools for the rows already there
--
-- The rows already in job_use are copied with the arrays made from
-- tracer.tools (tools_kind 2), once each (LIMIT 1 BY their summary's
-- hash), the new view first so that no row inserted meanwhile is missed
-- (a row both views wrote has a twin with tools_kind 1 and is not
-- copied).  Every row of tools_kind 0 then has a twin, and the sweep
-- reads only rows of tools_kind > 0; the originals are deleted by a
-- mutation (in the background; merges of job_use, whose sorting key
-- ends with the summary's hash, also keep the copy, the later insert).
-- Written for ClickHouse 18.16 and later; this file runs once, `tracer
-- datalake migrate` records it.

SET allow_experimental_low_cardinality_type = 1;

ALTER TABLE tracer.jobs
    ADD COLUMN tool_names Array(String),
    ADD COLUMN tool_cpu_s Array(Float64),
    ADD COLUMN tool_wall_s Array(Float64),
    ADD COLUMN tool_processes Array(UInt64),
    ADD COLUMN tools_kind UInt8;

ALTER TABLE tracer.job_use
    ADD COLUMN tool_names Array(String),
    ADD COLUMN tool_cpu_s Array(Float64),
    ADD COLUMN tool_wall_s Array(Float64),
    ADD COLUMN tool_processes Array(UInt64),
    ADD COLUMN tools_kind UInt8;

-- The view with the tools, under a new name (18.16 renames no view),
-- before the old one goes: a row inserted in between arrives twice
-- (once with tools_kind 0, which the sweep leaves out).
CREATE MATERIALIZED VIEW IF NOT EXISTS tracer.job_use_v8_mv TO tracer.job_use AS
SELECT end,
    cityHash64(scheduler, cluster, if(job_id != '', job_id, job)) AS jh,
    cityHash64(jh, host) AS nh, cityHash64(summary_id) AS sh, uid,
    user, account, partition, pipeline, host, if(job_id != '', job_id, job) AS jk,
    start_ns,
    if(toUInt32(job_start) > 0, least(start_ns, toUInt64(toUInt32(job_start)) * 1000000000),
       start_ns) AS first_ns,
    end_ns, alloc_cpus, cpu_s, alloc_mem_bytes, mem_peak_bytes, gpus_idle,
    toUInt8((state = 'TIMEOUT') + 2 * (state = 'OUT_OF_MEMORY' OR oom_kills > 0)) AS limits,
    inc_kind, inc_single, inc_cpus, inc_cpu_s, inc_unused_mem_bytes, inc_gpus_idle,
    tool_names, tool_cpu_s, tool_wall_s, tool_processes, tools_kind
FROM tracer.jobs
WHERE scheduler != 'host';

DROP TABLE IF EXISTS tracer.job_use_v7_mv;

-- The rows already there, each once, with their tools (none: empty).
INSERT INTO tracer.job_use
SELECT end, jh, nh, sh, uid, user, account, partition, pipeline, host, jk, start_ns, first_ns,
    end_ns, alloc_cpus, cpu_s, alloc_mem_bytes, mem_peak_bytes, gpus_idle, limits,
    inc_kind, inc_single, inc_cpus, inc_cpu_s, inc_unused_mem_bytes, inc_gpus_idle,
    t_names, t_cpu_s, t_wall_s, t_procs, toUInt8(2)
FROM
(
    SELECT * FROM tracer.job_use
    WHERE tools_kind = 0 AND sh NOT IN (SELECT sh FROM tracer.job_use WHERE tools_kind != 0)
    LIMIT 1 BY sh
)
ANY LEFT JOIN
(
    SELECT sh, groupArray(t) AS t_names, groupArray(c) AS t_cpu_s, groupArray(w) AS t_wall_s,
        groupArray(p) AS t_procs
    FROM (SELECT sh, t, sum(cpu) AS c, max(wall) AS w, sum(procs) AS p
          FROM (SELECT cityHash64(summary_id) AS sh, toString(tool) AS t, cpu_s AS cpu,
                    wall_s AS wall, processes AS procs
                FROM tracer.tools LIMIT 1 BY summary_id, tool, path)
          GROUP BY sh, t)
    GROUP BY sh
) USING sh;

-- The originals of the rows copied (a mutation: done in the background).
ALTER TABLE tracer.job_use DELETE WHERE tools_kind = 0;

INSERT INTO tracer.schema_version SELECT 8, now(), 'v8: the tools of each summary in its row';
