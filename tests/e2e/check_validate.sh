#!/usr/bin/env bash
# `hpcrun-lite --check --validate`: the built-in kernel (three arrays read 1:2:3, its own CPU
# times printed as the truth, whatever their ratio on this machine) measured under every source
# that works here. Soft must pass within 5 points of the time shares and exit 0, every hardware
# source the probe refuses be skipped with its reason; a run whose samples are not recorded
# (HPCRUN_LITE_TEST_HANDLER_STAGE=decode: the handler stops before the tree) must fail, exit 1,
# and keep its files for the user to send.
source "$(dirname "$0")/lib.sh"
[ -x "$(dirname "$HPCL_RUN")/hpcrun-lite-validate-kernel" ] || skip "the validation kernel is not built"

COLUMNS=1000 run_to ok "$HPCL_RUN" --check --validate
cat ok.out >&2
[ "$(cat ok.status)" = 0 ] || fail "--check --validate exited $(cat ok.status): $(cat ok.err)"
line=$(grep -E '^  soft +pass ' ok.out) || fail "soft did not pass"
"$HPCL_PYTHON" - "$line" <<'PY'
import re, sys
line = sys.argv[1]
pairs = re.findall(r"array \d ([\d.]+)% \(truth ([\d.]+)%\)", line)
if len(pairs) != 3:
    sys.exit(f"FAIL: no three shares in: {line}")
worst = max(abs(float(a) - float(b)) for a, b in pairs)
truth = [float(b) for a, b in pairs]
# The truth is what the kernel timed, not the 1:2:3 of its loads: on some VMs a load of one array
# costs three times a load of another (36.7/25.7/37.7 measured on a fresh 6.18 guest). The tool
# is judged against those times; the test only asks that all three were timed.
if min(truth) <= 0 or abs(sum(truth) - 100) > 0.2:
    sys.exit(f"FAIL: the kernel's own times are not three shares of its reading: {truth}")
if worst > 5:
    sys.exit(f"FAIL: soft off by {worst:.1f} points")
# soft at 4,000/s (validate.cpp): ~6,000 samples in the kernel's 1.5 s, where 1,000/s gave
# ~1,500 and a tolerance of only 4 binomial sd over three arrays.
on_arrays = int(re.search(r"(\d+) on the arrays", line).group(1))
if on_arrays < 4000:
    sys.exit(f"FAIL: only {on_arrays} samples on the arrays: not sampled at 4,000/s?")
print(f"soft within {worst:.1f} points of the time shares, {on_arrays} samples on the arrays")
PY
# Every hardware source the probe refuses is skipped with a reason.
for s in pebs-load pebs-store ibs-op; do
  source_works "$s" && continue
  grep -qE "^  $s +skipped +[a-z]" ok.out || fail "$s is not skipped with a reason"
done
grep -q "^validation passed" ok.out || fail "no verdict line"

step "a run that records nothing fails"
COLUMNS=1000 HPCRUN_LITE_TEST_HANDLER_STAGE=decode run_to bad "$HPCL_RUN" --check --validate
[ "$(cat bad.status)" = 1 ] || fail "a failed validation exited $(cat bad.status)"
grep -qE '^  soft +FAIL .*too few samples' bad.out || fail "the failure does not say why: $(cat bad.out)"
dir=$(sed -n 's/.*the run.s files: //p' bad.out | head -1)
[ -n "$dir" ] && [ -s "$dir/kernel.out" ] || fail "the failed run's files are not kept: '$dir'"
rm -rf "$dir"
grep -q "^validation FAILED" bad.out || fail "no FAILED line"
echo "check --validate: ok"
