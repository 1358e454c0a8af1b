-- 005_v5.sql - version 5: the hosts that sat idle.  tracerd records each
-- period a host spent with no job open and its CPUs quiet (idle_host:
-- idle_host_cpu_share, idle_host_after_s) as one "idle_host" record when
-- the period ends (a job opens, CPU use rises, tracerd stops): the host,
-- its CPUs and memory, the cluster of the last job it saw, the start
-- (the first quiet sample) and end, the CPU share busy meanwhile, how it
-- ended, the EC2 instance when the host is one and the hourly price of
-- tracer.conf.  `tracer sweep` sums them per host (idle host-hours, and
-- for EC2 the instance-hours with no job).
--
-- A ReplacingMergeTree sorted by host, start and summary_id: a record
-- delivered twice (a retried insert) folds with FINAL, as summaries do.
-- Written for ClickHouse 18.16 and later; this file runs once, `tracer
-- datalake migrate` records it.

CREATE TABLE IF NOT EXISTS tracer.idle_hosts
(
    summary_id      String,                   -- the record's id (a UUID)
    host            String,
    cluster         String,                   -- '' when no job was seen
    start           DateTime,
    end             DateTime,
    start_ns        UInt64,
    end_ns          UInt64,
    idle_s          Float64,
    cpus            UInt32,
    mem_bytes       UInt64,
    cpu_share_busy  Float64,                  -- all CPUs, during the period
    ended_by        String,                   -- job, cpu or stop
    instance_id     String,                   -- EC2 (DMI); '' elsewhere
    instance_type   String,
    price_hour      Float64                   -- 0: no price in tracer.conf
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(start)
ORDER BY (host, start, summary_id);

INSERT INTO tracer.schema_version SELECT 5, now(), 'v5: idle_hosts';
