#!/usr/bin/env python3
# CPU and wall time of `qspec run --backend avx2 --vectors vectors`, isolated and --no-isolate, for one or more qspec builds, interleaved.
#
#   python3 bench/isolation_cost.py RUNS QSPEC [QSPEC ...]
#
# Each round runs every (build, mode) once, so a change of the machine's load affects all alike;
# CPU is qspec's plus its workers' (the children's rusage), which varies far less with load than
# wall time does (docs/running.md, Isolation). Run from the source tree (it reads ./vectors).
import resource
import statistics
import subprocess
import sys
import time


def run(qspec, extra):
    t0 = time.time()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([qspec, "run", "--backend", "avx2", "--vectors", "vectors"] + extra,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime
    return time.time() - t0, user + system, system


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__ if __doc__ else "usage: isolation_cost.py RUNS QSPEC [QSPEC ...]")
    runs, builds = int(sys.argv[1]), sys.argv[2:]
    configs = [(q, mode) for q in builds for mode in ("isolated", "--no-isolate")]
    results = {c: [] for c in configs}
    for _ in range(runs):
        for q, mode in configs:
            results[(q, mode)].append(run(q, [] if mode == "isolated" else [mode]))
    for (q, mode), rs in results.items():
        wall, cpu, system = zip(*rs)
        print(f"{q} {mode}: wall best {min(wall):.2f} s median {statistics.median(wall):.2f} s; "
              f"CPU best {min(cpu):.2f} s median {statistics.median(cpu):.2f} s (kernel {statistics.median(system):.2f} s)")


main()
