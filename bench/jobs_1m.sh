#!/bin/sh
# --jobs 2 against --jobs 1 on 1M documents, whole processes, interleaved (run on a quiet machine):
#     sh bench/jobs_1m.sh [bench/data/synth_1m.jsonl] [runs]
# The corpus: python bench/generate.py --documents 1000000 -o bench/data/synth_1m.jsonl
# Each line: the run, wall seconds, user seconds, peak resident KB of the largest process; the
# ratio is the median --jobs 1 wall over the median --jobs 2 wall (target >= 1.9; --jobs 1 < 500 MB).
set -e
corpus=${1:-bench/data/synth_1m.jsonl}
runs=${2:-3}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
  for jobs in 1 2; do
    /usr/bin/time -f "jobs=$jobs %e %U %M" python -m spanagree score "$corpus" -q --jobs "$jobs" 2>&1 >/dev/null | grep "^jobs="
  done
done | tee /dev/stderr | python -c '
import statistics, sys
wall = {}
for line in sys.stdin:
    jobs, seconds = line.split()[:2]
    wall.setdefault(jobs, []).append(float(seconds))
one, two = statistics.median(wall["jobs=1"]), statistics.median(wall["jobs=2"])
print(f"median wall: jobs=1 {one:.2f} s, jobs=2 {two:.2f} s, ratio {one / two:.2f}")'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
