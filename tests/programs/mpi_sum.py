"""An mpi4py + NumPy program: each rank fills an array and sums it for about half a second of
CPU time, then rank 0 prints the reduced total (the same on every run). The end-to-end test
mpi_python.sh runs it under mpirun natively and under the tool."""
import time

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
values = np.arange(1_000_000, dtype=np.float64) * (rank + 1)
total = 0.0
rounds = 0
start = time.process_time()
while time.process_time() - start < 0.5:
    total += float(values.sum())
    rounds += 1
# The rounds differ run to run; the sum of one round does not.
grand = comm.reduce(total / rounds, op=MPI.SUM, root=0)
if rank == 0:
    print(f"ranks {comm.Get_size()} sum {grand:.1f}")
