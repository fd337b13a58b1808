"""An mpi4py + NumPy program with three arrays of known shares of the time: each rank makes the
arrays by three statements of `make` and reads each one in `norm` for 4, 2 and 1 budgets of CPU
time, timing each phase itself. The end-to-end test python_arrays.sh checks that the report
names each array by its statement (py_arrays.py:LINE) with a share within a tolerance of the time
measured here. The timing goes to $HPCL_TEST_TIMING_FILE.<pid>, one line per array, so that the
program's own output is the same under the tool as natively."""
import os
import sys
import time

import numpy as np
from mpi4py import MPI

BUDGET = float(sys.argv[1]) if len(sys.argv) > 1 else 0.3  # seconds of CPU time per weight


def make(n):
    velocity = np.ones(n)  # 32 MB each: far larger than the caches
    pressure = np.full(n, 2.0)
    density = np.arange(n, dtype=np.float64)
    return velocity, pressure, density


def norm(x, budget):
    total, rounds = 0.0, 0
    start = time.process_time()
    while time.process_time() - start < budget:
        total += float(x.sum())
        rounds += 1
    return total / rounds, time.process_time() - start


comm = MPI.COMM_WORLD
arrays = make(4_000_000)
sums, seconds = [], []
for array, weight in zip(arrays, (4, 2, 1)):
    s, t = norm(array, weight * BUDGET)
    sums.append(s)
    seconds.append(t)
timing = os.environ.get("HPCL_TEST_TIMING_FILE")
if timing:
    with open(f"{timing}.{os.getpid()}", "w", encoding="utf-8") as f:
        for name, weight, t in zip(("velocity", "pressure", "density"), (4, 2, 1), seconds):
            f.write(f"timing: {name} weight {weight} seconds {t:.6f}\n")
total = comm.reduce(sum(sums), op=MPI.SUM, root=0)
if comm.Get_rank() == 0:
    print(f"ranks {comm.Get_size()} total {total:.1f}")
