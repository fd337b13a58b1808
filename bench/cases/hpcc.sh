#!/usr/bin/env bash
# HPCC case study: the HPC Challenge suite (HPL, DGEMM, STREAM, PTRANS, RandomAccess, FFT,
# latency/bandwidth) on a 1x2 process grid with HPL N = CASES_HPCC_N (default 2900, which sizes
# MPIRandomAccess's table at 8M words = 64 MiB in all, RandomAccess's at 4M words per rank) and
# NB = 80: about 8-15 s on 2 ranks of this machine. The input is Debian's example
# _hpccinf.txt with N, P, Q and the output device changed. Runs `mpirun -np 2 hpcc` natively
# and under hpcrun-lite; hpcc reads ./hpccinf.txt and writes ./hpccoutf.txt in each run directory.
# Usage: bench/cases/hpcc.sh [OUTDIR]; see lib.sh for the environment.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
needs hpcc mpirun
n=${CASES_HPCC_N:-2900}
case_setup hpcc "mpirun -np $ranks --oversubscribe [hpcrun-lite -o DIR --] hpcc (hpccinf.txt: N=$n NB=80 P=1 Q=$ranks)"

in=$case_dir/input
write_input() {
  cat <<INF
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$n         Ns
1            # of NBs
80           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
$ranks            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
INF
}
write_input >"$in/hpccinf.txt"

case_run() {
  cp "$in/hpccinf.txt" .
  "${mpirun_cmd[@]}" "$@" hpcc
}
case_main
