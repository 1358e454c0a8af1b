#!/bin/bash
# alloc.sh - the demo job's CPUs, as "N FIRST": N the CPUs it asks
# (`tracer run --cpus N`: the first N of our affinity mask, at most 4),
# FIRST the one of them its pipeline is pinned to (taskset -c FIRST),
# leaving the others idle.  run-demo.sh and tests/html run the same job.
set -u
n=$(nproc) || exit 1
[ "$n" -gt 4 ] && n=4
first=$(taskset -cp $$ | sed 's/.*: *//; s/[-,].*//') || exit 1
echo "$n $first"
