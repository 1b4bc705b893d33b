"""Distribution-free statistics for repeated timings (scripts/multiswitch-report).

Timings on the emulated trunk have heavy tails (a TCP retransmission timeout
adds 0.2-2 s to one repetition), so a difference of medians says little by
itself: these say whether two layouts' repetitions are apart beyond their
noise, with no assumption on the distribution.

Run as a script for a self-check against published values:
python3 scripts/lib/ranktest.py
"""
import itertools
import math
import random
import statistics


def mann_whitney_p(a, b):
    """Two-sided p of the Mann-Whitney rank-sum test (H. B. Mann and D. R.
    Whitney, Ann. Math. Statist. 18(1), 1947; Wilcoxon, Biometrics Bull. 1(6),
    1945): the probability, with both samples from one distribution, of a rank
    sum as far from its mean as the observed one. Exact (every split of the
    pooled values) up to 16 values, else the normal approximation with the
    ties' correction. Ties take mid-ranks."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        return 1.0
    x = sorted(a + b)
    rank = {}
    for v in set(x):
        rank[v] = x.index(v) + (x.count(v) + 1) / 2
    r = [rank[v] for v in a + b]
    n = n1 + n2
    mean = n1 * (n + 1) / 2  # of the first sample's rank sum
    d = abs(sum(r[:n1]) - mean) - 1e-9
    if n <= 16:
        tot = ext = 0
        for idx in itertools.combinations(range(n), n1):
            tot += 1
            ext += abs(sum(r[i] for i in idx) - mean) >= d
        return ext / tot
    t = sum(x.count(v) ** 3 - x.count(v) for v in set(x))
    var = n1 * n2 / 12 * ((n + 1) - t / (n * (n - 1)))
    return math.erfc(d / math.sqrt(2 * var)) if var > 0 else 1.0


def median_ci(v, z=1.96):
    """The median of v and a distribution-free ~95 % confidence interval for
    it: the order statistics of ranks r = floor(n/2 - z*sqrt(n)/2) and
    n + 1 - r (the sign test's interval, normal approximation of
    Binomial(n, 1/2); e.g. W. J. Conover,
    Practical Nonparametric Statistics, 3rd ed., 1999, §3.2). None for n < 6,
    where no such interval reaches 95 %."""
    s = sorted(v)
    n = len(s)
    m = statistics.median(s) if n else float("nan")
    if n < 6:
        return m, None, None
    r = max(int(math.floor(n / 2 - z * math.sqrt(n) / 2)), 1)  # 1-based
    return m, s[r - 1], s[n - r]


def median_ratio_ci(a, b, reps=4000, seed=1):
    """median(b) / median(a) and its ~95 % percentile bootstrap interval
    (B. Efron and R. Tibshirani, An Introduction to the Bootstrap, 1993,
    ch. 13): each sample resampled with replacement on its own, REPS times,
    from a fixed seed so that a report regenerates to the same figures."""
    rng = random.Random(seed)
    r = sorted(statistics.median(rng.choices(b, k=len(b))) /
               statistics.median(rng.choices(a, k=len(a))) for _ in range(reps))
    return (statistics.median(b) / statistics.median(a), r[int(0.025 * reps)],
            r[int(0.975 * reps) - 1])


if __name__ == "__main__":
    # 4 against 4, fully separated: 2 of the C(8,4) = 70 splits are as extreme
    assert abs(mann_whitney_p([1, 2, 3, 4], [5, 6, 7, 8]) - 2 / 70) < 1e-12
    # 3 against 3, fully separated: 2 of 20 (p 0.10: 3 repetitions each can
    # never show a difference at the 5 % level)
    assert abs(mann_whitney_p([1, 2, 3], [4, 5, 6]) - 0.1) < 1e-12
    # identical samples: p 1
    assert mann_whitney_p([1, 2, 3], [1, 2, 3]) == 1.0
    # Mann & Whitney's Table I, n = m = 4, U = 1: P(U <= 1) = 2/70, so
    # two-sided 4/70 for [1, 2, 3, 5] against [4, 6, 7, 8]
    assert abs(mann_whitney_p([1, 2, 3, 5], [4, 6, 7, 8]) - 4 / 70) < 1e-12
    # 20 against 20 apart by one value's shift: the normal approximation
    p = mann_whitney_p(list(range(20)), [v + 20 for v in range(20)])
    assert p < 1e-6, p
    m, lo, hi = median_ci(list(range(1, 56)))
    assert (m, lo, hi) == (28, 20, 36), (m, lo, hi)
    # one sample against itself: the ratio 1 inside its interval; a sample
    # against itself doubled: 2 inside, 1 outside
    v = [1.0 + 0.01 * ((7 * i) % 13) for i in range(40)]
    r, lo, hi = median_ratio_ci(v, v)
    assert r == 1.0 and lo <= 1.0 <= hi, (r, lo, hi)
    r, lo, hi = median_ratio_ci(v, [2 * x for x in v])
    assert abs(r - 2) < 1e-12 and lo <= 2 <= hi and lo > 1, (r, lo, hi)
    print("ranktest: ok")
