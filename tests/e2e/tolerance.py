"""Tolerances of the end-to-end checks on sample shares and sample counts, derived from the
sample count instead of picked after a failure.

The profiler samples by a timer, so a variable's share of N samples is binomial around its true
time share p: standard deviation sqrt(p (1 - p) / N). CI runs the whole suite (some 150 end-to-end
tests, several share checks each) once per submission, and one false failure loses it; so each
check may fail by chance at most once in 10,000 runs. The two-sided normal quantile of 1e-4 is
3.89 standard deviations; Z = 4 is used for simplicity (two-sided chance 6.3e-5, one-sided 3.2e-5).

A tolerance is then Z standard deviations plus a *stated* systematic allowance where the truth
the share is compared with (the program's own clock, or its weights) and the sampler
legitimately disagree. The default allowance, SYSTEMATIC_RELATIVE, is for shares compared with
the time the program measured itself: the two clocks may disagree by up to 8% on what the calls
of one array cost against the others' (cache and TLB misses land on different instructions; the
samples that carry no data address are left out of the shares), and a relative bias d in one
array's time moves its share p by about d p (1 - p): 2 points at p = 1/2, 0.7 at 0.1, 0.15 at 0.02.

A tolerance must still catch a real bug: a variable that loses half of its samples moves its
share by about p / 2, so `share_check` fails a check whose tolerance is not below p / 2 as "too
few samples" (the run is too short or its rate too low for a meaningful check), not as a pass.

For counts ("at least k samples"), the count of a phase of known length is treated as Poisson
(an overestimate of the spread of a timer's count): `count_lower_bound(expected)` is
expected - Z sqrt(expected).

Python 3 standard library only; the checkers of this directory import it (it is their own
directory, so `import tolerance` works from them and, with sys.path set, from the drivers).
"""

import math

Z = 4.0  # two-sided false-failure chance per check 6.3e-5 (<= 1e-4 needs 3.89)
SYSTEMATIC_RELATIVE = 0.08  # clocks disagreeing by up to 8% on one array's cost: 0.08 p (1 - p)


def binomial_sd(p, n):
    """Standard deviation of a share p of n samples (binomial)."""
    p = min(max(p, 0.0), 1.0)
    return math.sqrt(p * (1 - p) / max(1, n))


def binomial_tolerance(p, n, z=Z):
    """z standard deviations of a share p of n samples: z sqrt(p (1 - p) / n)."""
    return z * binomial_sd(p, n)


def systematic_allowance(p, relative=SYSTEMATIC_RELATIVE):
    """What a relative disagreement `relative` between the truth's clock and the sampler on one
    variable's cost moves its share p by: relative * p * (1 - p)."""
    p = min(max(p, 0.0), 1.0)
    return relative * p * (1 - p)


def share_tolerance(p, n, systematic=None, z=Z, extra_sd=0.0):
    """The tolerance of a share whose truth is p, over n samples: z standard deviations (the
    binomial one and extra_sd, a further independent spread of the share such as that of an
    estimate of blocks tracked one in k) plus the systematic allowance (default:
    systematic_allowance(p))."""
    if systematic is None:
        systematic = systematic_allowance(p)
    return systematic + z * math.sqrt(binomial_sd(p, n) ** 2 + extra_sd ** 2)


def two_sample_tolerance(p, n1, n2, systematic=0.0, z=Z):
    """The tolerance of the difference of one share p measured in two runs of n1 and n2 samples."""
    p = min(max(p, 0.0), 1.0)
    return systematic + z * math.sqrt(p * (1 - p) * (1 / max(1, n1) + 1 / max(1, n2)))


def count_lower_bound(expected, z=Z):
    """The least count a phase expected to take `expected` samples gives but once in 10,000 runs
    (Poisson: expected - z sqrt(expected))."""
    return expected - z * math.sqrt(max(expected, 0.0))


def false_failure(tolerance, sd):
    """Two-sided normal chance that a deviation of standard deviation sd exceeds tolerance."""
    if sd <= 0:
        return 0.0
    return math.erfc(tolerance / sd / math.sqrt(2))


def share_check(label, k, n, truth, systematic=None, z=Z, width=16, say=print, extra_sd=0.0, light=False):
    """Checks the share k / n of a variable against its truth with share_tolerance, printing one
    line (label, samples, share, truth, tolerance) through `say`. Returns None when it holds, else
    the error: outside the tolerance, or a tolerance too wide to catch the variable losing half
    of its samples (too few samples for a meaningful check) unless `light` says that the caller
    knows and only the tolerance is to be held (the line says so)."""
    share = k / n if n > 0 else 0.0
    tol = share_tolerance(truth, n, systematic, z, extra_sd)
    unjudged = tol >= truth / 2
    say(f"{label:<{width}} {k:>7} of {n} samples  share {share:.3f}  truth {truth:.3f}  "
        f"tolerance {tol:.3f}" + ("  (too light to catch a lost half here)" if unjudged and light else ""))
    if unjudged and not light:
        return (f"{label}: {n} samples are too few: the tolerance {tol:.3f} would not catch it losing "
                f"half its share {truth:.3f} (run longer or at a higher rate)")
    if abs(share - truth) > tol:
        return f"{label}: share {share:.3f} of {n} samples, truth {truth:.3f} (tolerance {tol:.3f})"
    return None


def count_check(label, k, expected, z=Z, say=print):
    """Checks that a count k is at least count_lower_bound(expected), printing one line. Returns
    None when it holds, else the error."""
    bar = count_lower_bound(expected, z)
    say(f"{label}: {k} samples, expected about {expected:.0f}, at least {bar:.0f} required "
        f"(Poisson, {z:g} sd)")
    if k < bar:
        return f"{label}: {k} samples, under {bar:.0f} ({expected:.0f} expected, {z:g} sd below)"
    return None


if __name__ == "__main__":
    # Self-test of the formulas (python3 tolerance.py).
    assert abs(binomial_tolerance(0.5, 10000) - 0.02) < 1e-12
    assert abs(systematic_allowance(0.5) - 0.02) < 1e-12
    assert abs(share_tolerance(0.5, 10000) - 0.04) < 1e-12
    assert abs(false_failure(3.89, 1.0) - 1.0e-4) < 2e-6
    assert false_failure(Z, 1.0) < 1e-4
    assert abs(count_lower_bound(100) - 60) < 1e-12
    quiet = lambda *a, **k: None  # noqa: E731
    assert share_check("x", 500, 1000, 0.5, say=quiet) is None
    assert share_check("x", 400, 1000, 0.5, say=quiet) is not None  # 10 points off, tolerance 8.3
    assert "too few" in share_check("x", 10, 100, 0.1, say=quiet)  # tolerance 0.13 > 0.05
    assert share_check("x", 10, 100, 0.1, say=quiet, light=True) is None
    assert share_check("x", 30, 100, 0.1, say=quiet, light=True) is not None  # 20 points off
    assert count_check("x", 61, 100, say=quiet) is None and count_check("x", 59, 100, say=quiet)
    print("tolerance.py: ok")
