-- queries.sql - questions a site asks its tracer datalake (schema version 8,
-- contrib/clickhouse/migrations/).
-- One query per statement, each ending with ';' on a line of its own:
--   clickhouse-client --multiquery < contrib/clickhouse/queries.sql
-- A row a node delivered twice (a retried batch) is read once: each query
-- reads its rows in a subquery that keeps one per summary (LIMIT 1 BY
-- summary_id, or its hash sh in tracer.job_use), not with FINAL, which
-- merges every row of the table by its sorting key before the filter on
-- the month applies.  Questions per tool read the tools of each summary
-- from its row of tracer.job_use (version 8: by tool name, a tool's paths
-- folded), one row per summary, rather than tracer.tools, several rows a
-- summary that only LIMIT 1 BY three strings reads once each (three
-- times slower).  Prices are examples: set your own cost per core-hour
-- and per GiB-hour.

-- CPU efficiency by user, last 30 days: CPU used / CPU allocated
-- (a job without an allocation counts against its host's CPUs).
SELECT
    user,
    count() AS jobs,
    round(sum(cpu_s) / 3600, 2) AS cpu_hours,
    round(sum(wall_s * if(alloc_cpus > 0, alloc_cpus, host_cpus)) / 3600, 2) AS allocated_core_hours,
    round(sum(cpu_s) / sum(wall_s * if(alloc_cpus > 0, alloc_cpus, host_cpus)), 3) AS cpu_efficiency
FROM
(
    SELECT summary_id, user, cpu_s, wall_s, alloc_cpus, host_cpus
    FROM tracer.jobs
    PREWHERE end >= now() - INTERVAL 30 DAY
    WHERE wall_s > 0
    LIMIT 1 BY summary_id
)
GROUP BY user
ORDER BY allocated_core_hours DESC
;

-- CPU efficiency by tool, last 30 days: cores a tool kept busy while it
-- ran (1.0 = one core all the time), and its share of its jobs'
-- allocations.
SELECT
    tool,
    count() AS jobs,
    sum(procs) AS processes,
    round(sum(cpu) / 3600, 3) AS cpu_hours,
    round(sum(cpu) / sum(wall), 3) AS cores_busy,
    round(sum(cpu) / nullIf(sum(job_wall_s * alloc_cpus), 0), 3) AS share_of_allocation
FROM
(
    SELECT tool_names, tool_cpu_s, tool_wall_s, tool_processes, alloc_cpus,
        (end_ns - start_ns) / 1e9 AS job_wall_s
    FROM tracer.job_use
    PREWHERE end >= now() - INTERVAL 30 DAY
    WHERE tools_kind > 0
    LIMIT 1 BY sh
)
ARRAY JOIN tool_names AS tool, tool_cpu_s AS cpu, tool_wall_s AS wall, tool_processes AS procs
WHERE wall > 0
GROUP BY tool
ORDER BY cpu_hours DESC
LIMIT 50
;

-- The most over-allocated task names: allocated but unused core-hours
-- and memory, last 30 days (a job without an allocation had its host).
SELECT
    task_name,
    count() AS jobs,
    round(avg(if(alloc_cpus > 0, alloc_cpus, host_cpus)), 1) AS avg_cpus_allocated,
    round(sum(cpu_s) / sum(wall_s), 2) AS avg_cpus_used,
    round(sum(greatest(if(alloc_cpus > 0, alloc_cpus, host_cpus) * wall_s - cpu_s, 0)) / 3600, 4) AS idle_core_hours,
    round(avg(alloc_mem_bytes) / 1073741824, 2) AS avg_mem_gib_allocated,
    round(avg(mem_peak_bytes) / 1073741824, 2) AS avg_mem_gib_peak
FROM
(
    SELECT summary_id, task_name, alloc_cpus, host_cpus, cpu_s, wall_s, alloc_mem_bytes, mem_peak_bytes
    FROM tracer.jobs
    PREWHERE end >= now() - INTERVAL 30 DAY
    WHERE wall_s > 0
    LIMIT 1 BY summary_id
)
GROUP BY task_name
ORDER BY idle_core_hours DESC
LIMIT 20
;

-- Cost of idle allocations by pipeline, last 30 days: what was paid for
-- allocated cores and memory that did no work.
SELECT
    pipeline,
    count() AS jobs,
    round(sum(greatest(alloc_cpus * wall_s - cpu_s, 0)) / 3600, 2) AS idle_core_hours,
    round(sum(greatest(toFloat64(alloc_mem_bytes) - mem_peak_bytes, 0) * wall_s) / 1073741824 / 3600, 2) AS idle_gib_hours,
    round(idle_core_hours * 0.04 + idle_gib_hours * 0.005, 2) AS idle_cost
FROM
(
    SELECT summary_id, pipeline, alloc_cpus, wall_s, cpu_s, alloc_mem_bytes, mem_peak_bytes
    FROM tracer.jobs
    PREWHERE end >= now() - INTERVAL 30 DAY
    LIMIT 1 BY summary_id
)
GROUP BY pipeline
ORDER BY idle_cost DESC
;

-- The slowest tools by p95 of their wall time in a job, last 30 days.
SELECT
    tool,
    count() AS runs,
    round(quantile(0.5)(wall), 3) AS p50_s,
    round(quantile(0.95)(wall), 3) AS p95_s,
    round(max(wall), 3) AS max_s
FROM
(
    SELECT tool_names, tool_wall_s
    FROM tracer.job_use
    PREWHERE end >= now() - INTERVAL 30 DAY
    WHERE tools_kind > 0
    LIMIT 1 BY sh
)
ARRAY JOIN tool_names AS tool, tool_wall_s AS wall
GROUP BY tool
ORDER BY p95_s DESC
LIMIT 20
;

-- Jobs by state and user, last 30 days (schema version 2): failures,
-- OOM kills and timeouts next to the CPU time they took.
SELECT
    user,
    state,
    count() AS jobs,
    round(sum(cpu_s) / 3600, 2) AS cpu_hours
FROM
(
    SELECT summary_id, user, state, cpu_s
    FROM tracer.jobs
    PREWHERE end >= now() - INTERVAL 30 DAY
    LIMIT 1 BY summary_id
)
GROUP BY user, state
ORDER BY user, jobs DESC
;

-- Queue wait, requests and cost by account, last 30 days (schema
-- version 2; accounts and queue waits come from the scheduler).
SELECT
    account,
    count() AS jobs,
    round(avg(queue_wait_s), 1) AS avg_queue_wait_s,
    round(sum(cpu_s) / nullIf(sum(wall_s * req_cpus), 0), 3) AS cpu_of_request,
    round(sum(cost_total), 2) AS cost,
    round(sum(cost_unused), 2) AS cost_unused
FROM
(
    SELECT summary_id, account, queue_wait_s, cpu_s, wall_s, req_cpus, cost_total, cost_unused
    FROM tracer.jobs
    PREWHERE end >= now() - INTERVAL 30 DAY
    LIMIT 1 BY summary_id
)
GROUP BY account
ORDER BY jobs DESC
;
