"""The report's hand-written estimators, held to statsmodels and scipy."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.lessons import estimates

proportion = pytest.importorskip("statsmodels.stats.proportion")
rates = pytest.importorskip("statsmodels.stats.rates")
scipy_stats = pytest.importorskip("scipy.stats")


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_matches_statsmodels(counts: tuple[int, int]) -> None:
    x, n = counts
    low, high = proportion.proportion_confint(x, n, alpha=0.05, method="wilson")
    found = estimates.wilson(x, n)
    assert found is not None
    assert found.low == pytest.approx(low, abs=1e-9) and found.high == pytest.approx(high, abs=1e-9)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 300).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.integers(1, 300).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
)
def test_difference_of_wilson_intervals_is_newcombes(
    a: tuple[int, int], b: tuple[int, int]
) -> None:
    (x1, n1), (x0, n0) = a, b
    low, high = proportion.confint_proportions_2indep(
        x1, n1, x0, n0, method="newcomb", compare="diff", alpha=0.05
    )
    wa, wb = estimates.wilson(x1, n1), estimates.wilson(x0, n0)
    assert wa is not None and wb is not None
    found = estimates.difference(wa, wb)
    assert found.low == pytest.approx(low, abs=1e-9) and found.high == pytest.approx(high, abs=1e-9)


def test_one_stratum_of_the_stratified_interval_is_newcombes() -> None:
    wa, wb = estimates.wilson(7, 20), estimates.wilson(3, 20)
    assert wa is not None and wb is not None
    one = estimates.combine(
        [(estimates.mantel_haenszel_weight(20, 20), estimates.difference(wa, wb))]
    )
    low, high = proportion.confint_proportions_2indep(7, 20, 3, 20, method="newcomb")
    assert one is not None and (one.low, one.high) == pytest.approx((low, high), abs=1e-9)


def test_mantel_haenszel_weights_the_strata_by_their_harmonic_size() -> None:
    # two strata, differences 0.1 and 0.3: weights 20*80/100 = 16 and 50*50/100 = 25
    a = estimates.difference(estimates.Interval(0.2, 0.1, 0.3), estimates.Interval(0.1, 0.05, 0.2))
    b = estimates.difference(estimates.Interval(0.5, 0.4, 0.6), estimates.Interval(0.2, 0.1, 0.3))
    found = estimates.combine(
        [
            (estimates.mantel_haenszel_weight(20, 80), a),
            (estimates.mantel_haenszel_weight(50, 50), b),
        ]
    )
    assert found is not None and found.value == pytest.approx((16 * 0.1 + 25 * 0.3) / 41)
    assert found.low < found.value < found.high


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 500), st.floats(0.5, 400))
def test_poisson_score_matches_statsmodels(count: int, exposure: float) -> None:
    low, high = rates.confint_poisson(count, exposure, method="score", alpha=0.05)
    found = estimates.poisson_score(count, exposure)
    assert found is not None
    assert found.low == pytest.approx(low, abs=1e-9) and found.high == pytest.approx(high, rel=1e-9)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 9, 10, 20, 50, 200, 999, 5000])
def test_t_quantile_matches_scipy(df: int) -> None:
    assert estimates.t_quantile(0.975, df) == pytest.approx(scipy_stats.t.ppf(0.975, df), rel=1e-9)


@pytest.mark.parametrize("p", [1e-6, 0.001, 0.02, 0.3, 0.5, 0.8, 0.975, 0.999])
def test_normal_quantile_matches_scipy(p: float) -> None:
    assert estimates.normal_quantile(p) == pytest.approx(scipy_stats.norm.ppf(p), abs=1e-9)


def test_no_interval_without_trials() -> None:
    assert estimates.wilson(0, 0) is None and estimates.poisson_score(0, 0) is None
    assert estimates.combine([]) is None
