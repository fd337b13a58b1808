"""A fixed amount of NumPy work for bench/python_cost.sh: three 32 MB arrays made by three
statements, each summed a fixed number of times (unlike tests/programs/py_arrays.py, which reads
for a budget of CPU time and so would hide the tool's cost). Usage: py_fixed.py [ROUNDS]"""
import sys

import numpy as np
from mpi4py import MPI

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 100
velocity = np.ones(4_000_000)
pressure = np.full(4_000_000, 2.0)
density = np.arange(4_000_000, dtype=np.float64)
total = 0.0
for array, weight in ((velocity, 4), (pressure, 2), (density, 1)):
    for _ in range(weight * rounds):
        total += float(array.sum())
total = MPI.COMM_WORLD.reduce(total, op=MPI.SUM, root=0)
if MPI.COMM_WORLD.Get_rank() == 0:
    print(f"{total:.1f}")
