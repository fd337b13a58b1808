#!/usr/bin/env python3
"""The sampled instructions of one variable of a JSON data report, disassembled.

For a variable (default `[stack]`) of `hpcprof-lite report DB --format json --top 0`, prints its
hottest sampled instructions (the innermost frame of each access path: module and link-time
offset) with `objdump -d`'s text of that instruction and of the one before it, then classifies
all of the variable's samples:
  simd         the instruction uses an xmm/ymm/zmm register (spills, reloads, SIMD arithmetic
               with a memory operand);
  prev-branch  the instruction before it is a jump, call or return (the runtime then uses the
               instruction at the PC, not the previous one);
  prev-no-mem  the instruction before it has no memory operand (push/pop count as memory;
               arithmetic: the time of that arithmetic lands on this instruction's operand);
  atomic       a lock-prefixed or xchg instruction (fences, try-locks).
This is how docs/CASES.md tells "compute time charged to a spill slot" from real stack traffic.
Needs binutils' objdump and the modules at the paths they were measured from; standard library
otherwise. Usage: leaf_insns.py REPORT.json [VARIABLE] [--top N]
"""
import argparse
import collections
import json
import re
import subprocess
import sys

INSN = re.compile(r"\s+([0-9a-f]+):\s+(.*)")


def around(module, offset, cache={}):
    """(previous instruction, instruction) at a link-time offset, as objdump prints them."""
    key = (module, offset)
    if key not in cache:
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--start-address=%d" % max(0, offset - 48),
                              "--stop-address=%d" % (offset + 16), module],
                             capture_output=True, text=True).stdout
        rows = [(int(m.group(1), 16), m.group(2).strip()) for m in map(INSN.match, out.splitlines()) if m]
        prev = cur = ""
        for i, (addr, text) in enumerate(rows):
            if addr == offset:
                cur, prev = text, rows[i - 1][1] if i else ""
        cache[key] = (prev, cur)
    return cache[key]


def classes(prev, cur):
    k = []
    if re.search(r"%[xyz]mm", cur):
        k.append("simd")
    if re.match(r"(j|call|ret|loop)", prev):
        k.append("prev-branch")
    elif prev and "(" not in prev and not prev.startswith(("push", "pop")):
        k.append("prev-no-mem")
    if cur.startswith("lock") or cur.startswith("xchg"):
        k.append("atomic")
    return ",".join(k) or "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("report")
    ap.add_argument("variable", nargs="?", default="[stack]")
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()
    with open(args.report) as f:
        variables = json.load(f).get("variables") or []
    found = [v for v in variables if v.get("name") == args.variable]
    if not found:
        sys.exit("leaf_insns.py: no variable named %s" % args.variable)
    leaves = collections.Counter()
    for v in found:
        for a in v.get("accesses") or []:
            path = a.get("path") or []
            if path and isinstance(path[0].get("offset"), int) and path[0].get("module"):
                leaves[(path[0]["module"], path[0]["offset"])] += int((a.get("metrics") or {}).get("samples", 0))
    total = sum(leaves.values())
    if not total:
        sys.exit("leaf_insns.py: %s has no sampled instructions" % args.variable)
    print("%s: %d samples on %d instructions" % (args.variable, total, len(leaves)))
    for (module, offset), n in leaves.most_common(args.top):
        prev, cur = around(module, offset)
        print("%6d %5.1f%%  %s+%s  %-40s | before: %s" % (n, 100.0 * n / total, module.rsplit("/", 1)[-1],
                                                         hex(offset), cur or "?", prev or "?"))
    by_class = collections.Counter()
    for (module, offset), n in leaves.items():
        by_class[classes(*around(module, offset))] += n
    print("by class:")
    for k, n in by_class.most_common():
        print("  %-28s %6d %5.1f%%" % (k, n, 100.0 * n / total))


if __name__ == "__main__":
    main()
