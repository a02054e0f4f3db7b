"""The interval estimators of the lessons report: honest at small n, combined within strata.

- A rate (false positives over reported findings): the Wilson score interval, on the
  effective number of findings (Kish's design effect of findings clustered in tasks, never
  above the real number), so a few tasks with many findings do not look like many trials.
- A count per task (confirmed findings): the Poisson score interval, with the same design
  effect for overdispersion.
- A ratio of totals (tokens per confirmed finding): the delta method with Student's t
  quantile on tasks - 1 degrees of freedom.
- A difference of two arms: MOVER (Zou & Donner 2008), which with Wilson intervals is
  Newcombe's hybrid score interval (his method 10).
- Across strata (categories): Mantel-Haenszel weights w = n1 n0 / (n1 + n0) on each
  stratum's difference, the interval again by MOVER over the strata's own intervals: the
  stratified Newcombe interval. With one stratum it is Newcombe's.
The formulas are hand-written (scipy and statsmodels cost 2-4 s to import here); the tests
hold them to statsmodels and scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

Z95 = 1.959963984540054
Z80_POWER = 0.8416212335729143


class Interval(NamedTuple):
    value: float
    low: float
    high: float


def wilson(successes: float, trials: float, z: float = Z95) -> Interval | None:
    """Wilson's score interval for a proportion (None without trials)."""
    if trials <= 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def poisson_score(count: float, exposure: float, z: float = Z95) -> Interval | None:
    """The score interval for a Poisson rate: `count` events over `exposure` units."""
    if exposure <= 0:
        return None
    root = z * math.sqrt(count + z * z / 4)
    return Interval(
        count / exposure,
        max(0.0, (count + z * z / 2 - root) / exposure),
        (count + z * z / 2 + root) / exposure,
    )


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile for whole degrees of freedom: the Cornish-Fisher expansion in the
    normal quantile, polished by Newton steps on the exact CDF (Abramowitz & Stegun 26.7.3-4)."""
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = normal_quantile(p)
    z2 = z * z
    t = (
        z
        + (z2 + 1) * z / (4 * df)
        + ((5 * z2 + 16) * z2 + 3) * z / (96 * df**2)
        + (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / (384 * df**3)
        + ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / (92160 * df**4)
    )
    if df > 1000:
        return t  # the expansion is exact to 1e-12 there
    scale = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    for _ in range(3):
        density = scale * (1 + t * t / df) ** (-(df + 1) / 2)
        t -= (_t_cdf(t, df) - p) / density
    return t


def _t_cdf(t: float, df: int) -> float:
    theta = math.atan(abs(t) / math.sqrt(df))
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2:  # odd
        term, total = math.cos(theta), 0.0
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= cos2 * (2 * k) / (2 * k + 1)
        inside = 2 / math.pi * (theta + sin * total)
    else:
        term, total = 1.0, 0.0
        for k in range(1, df // 2 + 1):
            total += term
            term *= cos2 * (2 * k - 1) / (2 * k)
        inside = sin * total
    return 0.5 + inside / 2 if t >= 0 else 0.5 - inside / 2


def normal_quantile(p: float) -> float:
    """The standard normal quantile (Acklam's rational approximation, one Newton step)."""
    a = (-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690,
         -30.66479806614716, 2.506628277459239)  # fmt: skip
    b = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
         -13.28068155288572)  # fmt: skip
    c = (-7.784894002430293e-03, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
         4.374664141464968, 2.938163982698783)  # fmt: skip
    d = (7.784695709041462e-03, 0.3224671290700398, 2.445134137142996, 3.754408661907416)
    if p < 0.02425:
        q = math.sqrt(-2 * math.log(p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    elif p > 1 - 0.02425:
        return -normal_quantile(1 - p)
    else:
        q = p - 0.5
        r = q * q
        x = (
            (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
            * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        )
    error = 0.5 * math.erfc(-x / math.sqrt(2)) - p
    return x - error * math.sqrt(2 * math.pi) * math.exp(x * x / 2)


def difference(treated: Interval, control: Interval) -> Interval:
    """treated - control with the MOVER interval (Newcombe's, for two Wilson intervals)."""
    d = treated.value - control.value
    low = d - math.hypot(treated.value - treated.low, control.high - control.value)
    high = d + math.hypot(treated.high - treated.value, control.value - control.low)
    return Interval(d, low, high)


def combine(parts: Sequence[tuple[float, Interval]]) -> Interval | None:
    """sum(w * estimate) / sum(w) with the MOVER interval of a weighted sum."""
    total = sum(weight for weight, _ in parts)
    if total <= 0:
        return None
    value = sum(weight * part.value for weight, part in parts) / total
    below = math.sqrt(sum((w / total * (p.value - p.low)) ** 2 for w, p in parts))
    above = math.sqrt(sum((w / total * (p.high - p.value)) ** 2 for w, p in parts))
    return Interval(value, value - below, value + above)


def mantel_haenszel_weight(treated_units: float, control_units: float) -> float:
    """A stratum's weight for a difference: n1 n0 / (n1 + n0) (0 when an arm is empty)."""
    total = treated_units + control_units
    return treated_units * control_units / total if treated_units and control_units else 0.0
