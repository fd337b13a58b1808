#!/usr/bin/env python3
"""Runs a command and writes its children's CPU time to FILE as "user system" seconds with
microsecond resolution (os.wait4's rusage; /usr/bin/time rounds to 10 ms, too coarse for a few
hundred samples). Usage: cputime.py FILE CMD [ARGS...]; exits with the command's status."""
import os
import sys

out, cmd = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    try:
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(f"{ru.ru_utime:.6f} {ru.ru_stime:.6f}\n")
sys.exit(os.waitstatus_to_exitcode(status) & 0xff)
