#!/usr/bin/env python3
# CPU and wall time of `qspec run --backend avx2 --vectors vectors`, isolated and --no-isolate, for one or more qspec builds, interleaved.
#
#   python3 bench/isolation_cost.py RUNS QSPEC [QSPEC ...]
#
# Each round runs every (build, mode) once, so a change of the machine's load affects all alike;
# CPU is qspec's plus its workers' (the children's rusage), which varies far less with load than
# wall time does (docs/running.md, Isolation). Run from the source tree (it reads ./vectors). Prints
# tests/s by the best wall time and per CPU second (the test count is qspec's summary line).
import re
import resource
import statistics
import subprocess
import sys
import time


def run(qspec, extra):
    t0 = time.time()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([qspec, "run", "--backend", "avx2", "--vectors", "vectors"] + extra,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False, text=True).stdout
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime
    tests = re.search(r"^Total: (\d+) tests", out, re.MULTILINE)  # the summary line
    return time.time() - t0, user + system, system, int(tests.group(1)) if tests else 0


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__ if __doc__ else "usage: isolation_cost.py RUNS QSPEC [QSPEC ...]")
    runs, builds = int(sys.argv[1]), sys.argv[2:]
    configs = [(q, mode) for q in builds for mode in ("isolated", "--no-isolate")]
    results = {c: [] for c in configs}
    for _ in range(runs):
        for q, mode in configs:
            results[(q, mode)].append(run(q, [] if mode == "isolated" else [mode]))
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"load average at the end: {load}")
    for (q, mode), rs in results.items():
        wall, cpu, system, tests = zip(*rs)
        n = max(tests)
        print(f"{q} {mode}: {n} tests; wall best {min(wall):.2f} s median {statistics.median(wall):.2f} s; "
              f"CPU best {min(cpu):.2f} s median {statistics.median(cpu):.2f} s (kernel {statistics.median(system):.2f} s); "
              f"tests/s {n / min(wall):,.0f} by the best wall, {n / statistics.median(cpu):,.0f} per CPU second (median), "
              f"{1e6 * statistics.median(cpu) / max(n, 1):.1f} µs CPU per test")


main()
