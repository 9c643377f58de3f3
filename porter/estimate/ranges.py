"""Combine the (low, likely, high) ranges of independent work items into one range: the 10th to 90th percentile.

Adding every item's high end assumes everything goes badly at once; a team cannot decide on a range that wide. Each
item is read as a PERT distribution (mean (low + 4·likely + high) / 6, standard deviation (high − low) / 6), the items
are taken as independent (means and variances add), and the sum is read as the lognormal with that mean and variance,
so the result stays positive and keeps the right skew of a few large items. The combination is analytic: the same
items always give the same range, with no sampling noise and no seed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from porter.estimate.effort_model import Hours

LOW_QUANTILE = 0.10
HIGH_QUANTILE = 0.90
# The standard normal's 90th percentile (P10 is its negative): ranges are P10–P90, likely is the median.
_Z90 = 1.2815515655446004


@dataclass(frozen=True)
class Spread:
    """The mean and variance of an amount of work, in hours squared for the variance."""

    mean: float = 0.0
    variance: float = 0.0

    def __add__(self, other: "Spread") -> "Spread":
        return Spread(self.mean + other.mean, self.variance + other.variance)


def pert(h: Hours) -> Spread:
    """A range as a PERT distribution's mean and variance."""
    return Spread((h.low + 4 * h.likely + h.high) / 6, ((h.high - h.low) / 6) ** 2)


def spread(items: Iterable[Hours]) -> Spread:
    """The mean and variance of the sum of independent items."""
    total = Spread()
    for h in items:
        total = total + pert(h)
    return total


def percentiles(s: Spread) -> Hours:
    """P10, median and P90 of the lognormal with the spread's mean and variance (zero work stays zero)."""
    if s.mean <= 0:
        return Hours()
    if s.variance <= 0:
        return Hours(s.mean, s.mean, s.mean)
    sigma2 = math.log(1 + s.variance / s.mean ** 2)
    mu = math.log(s.mean) - sigma2 / 2
    sigma = math.sqrt(sigma2)
    return Hours(math.exp(mu - _Z90 * sigma), math.exp(mu), math.exp(mu + _Z90 * sigma))


def combine(items: Iterable[Hours]) -> Hours:
    """The P10–median–P90 range of the sum of independent items."""
    return percentiles(spread(items))
