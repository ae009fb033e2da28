"""One rater or system against a fixed group of raters: Shah's S (Shah 2011).

For item i with outsider category t_i and n_ic group raters in category c:

    A_o   = (1/n) Σ_i n_{i t_i} (n_{i t_i} − 1) / (m (m − 1))
    A_max = (1/n) Σ_i max_c n_ic (n_ic − 1) / (m (m − 1))
    A_e   = Σ_c t̄_c A_{e,c},   A_{e,c} = (1/(m(m − 1))) Σ_{p≠p'} (n_pc / n)(n_p'c / n)
    S     = (A_o − A_e) / (A_max − A_e)

where t̄_c is the outsider's share of category c and A_{e,c} the group's pairwise chance term for
c. A_o is the chance that two group raters both agree with the outsider; A_max its best possible
value given the group. Items where the outsider or any group rater is missing are skipped.

Reference: Shah, M. (2011). Generalized agreement statistics over fixed group of experts. ECML PKDD
2011, LNCS 6913, 191-206.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .ratings import as_array, as_ratings, cells, code_values
from .result import Agreement, finish

__all__ = ["SKIP_MISSING", "s_against_group"]

SKIP_MISSING = "missing ratings"


def rater_marginals(codes: np.ndarray, k: int) -> np.ndarray:
    """(m, k) array: n_rc, the number of items rater r put in category c."""
    m = codes.shape[1]
    rater = np.broadcast_to(np.arange(m), codes.shape)
    present = codes >= 0
    return np.bincount(rater[present] * k + codes[present], minlength=m * k).reshape(m, k)


def pairwise_chance(marginals: np.ndarray, n: int) -> np.ndarray:
    """(k,) per-category chance agreement averaged over ordered rater pairs p ≠ p'.

    ``(1 / (m (m - 1))) Σ_{p≠p'} (n_pc / n) (n_p'c / n)``, computed as
    ``((Σ_p n_pc)² - Σ_p n_pc²) / (m (m - 1) n²)`` with no loop over pairs.
    """
    m = marginals.shape[0]
    p = marginals / n
    return (p.sum(axis=0) ** 2 - (p**2).sum(axis=0)) / (m * (m - 1))



def s_against_group(outsider: ArrayLike, ratings: ArrayLike, *, categories: ArrayLike | None = None) -> Agreement:
    """Shah's S of ``outsider`` (one label per item) against the group's items × raters ``ratings``."""
    group = as_ratings(ratings)
    out = as_array(outsider)
    if out.ndim != 1 or out.shape[0] != group.shape[0]:
        raise ValueError(f"outsider must be 1-D with one value per item ({group.shape[0]}); got shape {out.shape}")
    if out.dtype != group.dtype:  # code both with one set of categories, without casting
        out, group = out.astype(object), group.astype(object)
    codes, cats = code_values(np.column_stack([out, group]), categories)
    complete = (codes >= 0).all(axis=1)
    skipped = {SKIP_MISSING: int(codes.shape[0] - complete.sum())}
    target, codes = codes[complete, 0], codes[complete, 1:]
    (n, m), k = codes.shape, len(cats)
    common = dict(n_items=n, n_raters=m, categories=tuple(cats.tolist()), skipped=skipped, missing="complete")
    if m < 2 or n == 0:
        undefined = (f"it needs at least two group raters; got {m}" if m < 2
                     else "no item was rated by the outsider and every group rater")
        return finish("s_against_group", math.nan, math.nan, undefined=undefined, **common)
    pairs = m * (m - 1)
    agree_with_target = (codes == target[:, None]).sum(axis=1)
    observed = float((agree_with_target * (agree_with_target - 1)).sum() / (n * pairs))
    item, _, count = cells(codes, k)
    item_starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    maximum = float(np.maximum.reduceat(count * (count - 1), item_starts).sum() / (n * pairs))
    target_share = np.bincount(target, minlength=k) / n
    expected = float(target_share @ pairwise_chance(rater_marginals(codes, k), n))
    return finish("s_against_group", observed, expected, maximum=maximum, **common)
