#!/usr/bin/env bash
# One line naming the machine and the build a benchmark's figures come from: every figure in
# docs/PERFORMANCE.md says both, because the same build costs several times more on a machine
# whose kernel entries are dear (a paravirtualized VM) than on one where they are cheap.
#   machine: the CPU model as lscpu names it, with its family and model numbers (lscpu often
#            says only "AMD EPYC" in a VM), the CPUs, the hypervisor, the kernel;
#   build:   the build directory's CMAKE_BUILD_TYPE (and sanitizers, if on) and the commit of the
#            sources (+ when they have uncommitted changes).
# The hypervisor is read from the kernel's log ("Hypervisor detected: PVM"), which names
# paravirtualized ones that systemd-detect-virt reports as nothing or as the container around
# them; without access to the log, from systemd-detect-virt --vm; else only whether the CPU
# says it runs under one.
# Usage: bench/machine.sh [BUILD_DIR]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}

field() { LC_ALL=C lscpu 2>/dev/null | sed -n "s/^$1:[[:space:]]*//p" | head -1; }
model=$(field 'Model name')
family=$(field 'CPU family')
num=$(field 'Model')
cpus=$(nproc 2>/dev/null || echo '?')

hv=$(dmesg 2>/dev/null | sed -n 's/.*Hypervisor detected: *//p' | head -1)
if [ -z "$hv" ] && command -v systemd-detect-virt >/dev/null; then
  hv=$(systemd-detect-virt --vm 2>/dev/null)
  [ "$hv" = none ] && hv=
fi
if [ -z "$hv" ]; then
  if grep -qw hypervisor /proc/cpuinfo 2>/dev/null; then hv='unnamed'; else hv='none (bare metal)'; fi
fi

type='?'
if [ -f "$build/CMakeCache.txt" ]; then
  type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
  [ -n "$type" ] || type='(no type)'
  grep -q '^HPCL_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" && type="$type, sanitizers"
fi
if commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
  git -C "$root" diff --quiet HEAD 2>/dev/null || commit="$commit+"
else
  commit='sources outside git'
fi

echo "machine: ${model:-?} (family ${family:-?}, model ${num:-?}), $cpus CPUs, hypervisor $hv," \
  "kernel $(uname -r); build: $type of $commit ($build)"
