#!/usr/bin/env python3
"""metaserver.py - plays the ECS task metadata v4 endpoint and EC2 IMDSv2
on loopback for tracer-wrap's tests, with the documented response shapes.

    metaserver.py PORTFILE LOGFILE MODE [LIFETIME_S [JOBDIR]]

MODE: normal (documented answers), hang (accepts, never answers),
garbage (200 with bodies that are not JSON), fargate (a task of launch
type FARGATE: its size in the task's Limits, none in the container's,
no IMDS), jobs (one container per AWS Batch job, as tests/tuneaws runs
them: /v4/ID answers from JOBDIR/ID.json, {"vcpus": N, "memory_mib": M,
"family": JOB_DEFINITION, "tags": {...}}, read at each request: the
container's Limits are the job's size, the task's Family and TaskTags
its job definition and tags; no IMDS).  The chosen port is written
to PORTFILE once listening; every request is logged to LOGFILE as one
JSON line (method, path, headers).  The server stops by itself after
LIFETIME_S seconds (default 120) so a failed test cannot leave it behind.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "AQAEAFakeTokenForTracerTests0123456789=="

CONTAINER = {
    "DockerId": "ea32192c8553fbff06c9340478a2ff089b2bb5646fb718b4ee206641c9086d66",
    "Name": "default",
    "DockerName": "ecs-bwa-jobdef-7-default-b6cfe0d8b2f0e1e4e301",
    "Image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/bwa:0.7.17",
    "ImageID": "sha256:d691691e9652791a60114e67b365688d20d19940dde7c4736ea30e660d8d3553",
    "Labels": {
        "com.amazonaws.ecs.cluster": "arn:aws:ecs:us-east-1:123456789012:cluster/AWSBatch-ce-spot-4f1e",
        "com.amazonaws.ecs.container-name": "default",
        "com.amazonaws.ecs.task-arn": "arn:aws:ecs:us-east-1:123456789012:task/AWSBatch-ce-spot-4f1e/8f03e41243824aea923aca126495f665",
        "com.amazonaws.ecs.task-definition-family": "bwa-jobdef",
        "com.amazonaws.ecs.task-definition-version": "7",
    },
    "DesiredStatus": "RUNNING",
    "KnownStatus": "RUNNING",
    "Limits": {"CPU": 2048, "Memory": 4096},
    "CreatedAt": "2024-03-02T00:15:07.620912337Z",
    "StartedAt": "2024-03-02T00:15:08.062559351Z",
    "Type": "NORMAL",
    "LogDriver": "awslogs",
    "LogOptions": {"awslogs-group": "/aws/batch/job", "awslogs-region": "us-east-1",
                   "awslogs-stream": "bwa-jobdef/default/8f03e41243824aea923aca126495f665"},
    "ContainerARN": "arn:aws:ecs:us-east-1:123456789012:container/0206b271-b33f-47ab-86c6-a0ba208a70a9",
    "Networks": [{"NetworkMode": "bridge", "IPv4Addresses": ["172.17.0.2"]}],
}

TASK = {
    "Cluster": "arn:aws:ecs:us-east-1:123456789012:cluster/AWSBatch-ce-spot-4f1e",
    "TaskARN": "arn:aws:ecs:us-east-1:123456789012:task/AWSBatch-ce-spot-4f1e/8f03e41243824aea923aca126495f665",
    "Family": "bwa-jobdef",
    "Revision": "7",
    "DesiredStatus": "RUNNING",
    "KnownStatus": "RUNNING",
    "PullStartedAt": "2024-03-02T00:15:02.123456789Z",
    "PullStoppedAt": "2024-03-02T00:15:06.234567891Z",
    "AvailabilityZone": "us-east-1b",
    "LaunchType": "EC2",
    "Containers": [CONTAINER],
    "ClockDrift": {"ClockErrorBound": 0.5, "ReferenceTimestamp": "2024-03-02T00:15:00Z",
                   "ClockSynchronizationStatus": "SYNCHRONIZED"},
    "EphemeralStorageMetrics": {"Utilized": 261, "Reserved": 20496},
}

TASK_WITH_TAGS = dict(TASK, TaskTags={
    "aws:batch:job-definition": "bwa-jobdef",
    "aws:batch:job-queue": "genomics-spot",
    "tracer.run_name": "nightly-2024-03-02",
}, ContainerInstanceTags={})

DOCUMENT = {
    "accountId": "123456789012",
    "architecture": "x86_64",
    "availabilityZone": "us-east-1b",
    "billingProducts": None,
    "devpayProductCodes": None,
    "marketplaceProductCodes": None,
    "imageId": "ami-0ff8a91507f77f867",
    "instanceId": "i-0abcdef1234567890",
    "instanceType": "c5.2xlarge",
    "kernelId": None,
    "pendingTime": "2024-03-02T00:10:11Z",
    "privateIp": "10.0.1.23",
    "ramdiskId": None,
    "region": "us-east-1",
    "version": "2017-09-30",
}

# on Fargate the task's size is the allocation (vCPUs and MiB)
CONTAINER_FARGATE = {k: v for k, v in CONTAINER.items() if k != "Limits"}
TASK_FARGATE = dict(TASK, LaunchType="FARGATE", Limits={"CPU": 2, "Memory": 4096},
                    Containers=[CONTAINER_FARGATE])
TASK_FARGATE_WITH_TAGS = dict(TASK_WITH_TAGS, LaunchType="FARGATE",
                              Limits={"CPU": 2, "Memory": 4096}, Containers=[CONTAINER_FARGATE])

GARBAGE = b'{"DockerId": "abc", "Limits": {"CPU": 2048,,, <html>oops'


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # keep stderr quiet
        pass

    def record(self):
        with self.server.log_lock:
            with open(self.server.log_path, "a") as f:
                f.write(json.dumps({"method": self.command, "path": self.path,
                                    "headers": dict(self.headers)}) + "\n")

    def reply(self, code, body, ctype="application/json"):
        if isinstance(body, (dict, list)):
            body = json.dumps(body, indent=4).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def hang(self):
        # never answers; ends with the server (bounded by its lifetime)
        self.server.stop.wait(self.server.lifetime)

    def do_PUT(self):
        self.record()
        if self.server.mode == "hang":
            return self.hang()
        if self.path != "/latest/api/token":
            return self.reply(404, "not found", "text/plain")
        ttl = self.headers.get("X-aws-ec2-metadata-token-ttl-seconds")
        if not ttl or not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
            return self.reply(400, "missing or bad TTL", "text/plain")
        self.reply(200, TOKEN, "text/plain")

    def fargate(self, path):
        rest = path[len("/v4/"):] if path.startswith("/v4/") else None
        if rest is None:  # no IMDS on Fargate
            return self.reply(404, "not found", "text/plain")
        sub = rest.split("/", 1)[1] if "/" in rest else ""
        body = {"": CONTAINER_FARGATE, "task": TASK_FARGATE,
                "taskWithTags": TASK_FARGATE_WITH_TAGS}.get(sub)
        if body is None:
            return self.reply(404, "not found", "text/plain")
        self.reply(200, body)

    def job(self, path):
        rest = path[len("/v4/"):] if path.startswith("/v4/") else ""
        job_id, _, sub = rest.partition("/")
        if not job_id or not all(c.isalnum() or c in "-_" for c in job_id):
            return self.reply(404, "not found", "text/plain")
        try:
            with open(os.path.join(self.server.job_dir, job_id + ".json")) as f:
                spec = json.load(f)
        except (OSError, ValueError):
            return self.reply(404, "no such job", "text/plain")
        labels = dict(CONTAINER["Labels"])
        labels["com.amazonaws.ecs.task-definition-family"] = spec["family"]
        container = dict(CONTAINER, Labels=labels, Limits={"CPU": int(spec["vcpus"] * 1024),
                                                           "Memory": int(spec["memory_mib"])})
        task = dict(TASK, Family=spec["family"], Containers=[container])
        body = {"": container, "task": task,
                "taskWithTags": dict(task, TaskTags=spec.get("tags", {}),
                                     ContainerInstanceTags={})}.get(sub)
        if body is None:
            return self.reply(404, "not found", "text/plain")
        self.reply(200, body)

    def do_GET(self):
        self.record()
        mode = self.server.mode
        if mode == "hang":
            return self.hang()
        path = self.path
        if mode == "fargate":
            return self.fargate(path)
        if mode == "jobs":
            return self.job(path)
        if path.startswith("/latest/"):
            # IMDSv2: every GET needs the session token
            if self.headers.get("X-aws-ec2-metadata-token") != TOKEN:
                return self.reply(401, "", "text/plain")
            if path == "/latest/dynamic/instance-identity/document":
                return self.reply(200, GARBAGE if mode == "garbage" else DOCUMENT)
            if path == "/latest/meta-data/instance-life-cycle":
                return self.reply(200, "spot", "text/plain")
            return self.reply(404, "", "text/plain")
        if path.startswith("/v4/"):
            rest = path[len("/v4/"):]
            if "/" not in rest:
                return self.reply(200, GARBAGE if mode == "garbage" else CONTAINER)
            sub = rest.split("/", 1)[1]
            if sub == "task":
                return self.reply(200, GARBAGE if mode == "garbage" else TASK)
            if sub == "taskWithTags":
                return self.reply(200, GARBAGE if mode == "garbage" else TASK_WITH_TAGS)
        self.reply(404, "not found", "text/plain")


def main():
    if len(sys.argv) < 4 or sys.argv[3] not in ("normal", "hang", "garbage", "fargate", "jobs") \
            or (sys.argv[3] == "jobs") != (len(sys.argv) == 6):
        sys.stderr.write(__doc__)
        return 2
    port_file, log_path, mode = sys.argv[1:4]
    lifetime = float(sys.argv[4]) if len(sys.argv) > 4 else 120.0
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.mode, srv.log_path, srv.lifetime = mode, log_path, lifetime
    srv.job_dir = sys.argv[5] if mode == "jobs" else None
    srv.log_lock, srv.stop = threading.Lock(), threading.Event()
    open(log_path, "w").close()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    with open(port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))

    os.rename(port_file + ".tmp", port_file)
    deadline = time.monotonic() + lifetime
    try:
        while time.monotonic() < deadline:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    srv.stop.set()
    srv.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
