"""Folds and splits of sequences: the one place that deals examples into folds.

Every fold or split of the package holds out *whole groups* (a group may be a single
sequence): the CV folds of ``learn_penalty(model="auto")``, of
:class:`penlearn.tune.SupervisedPenalty` and of ``penlearn learn --n-folds``, the random
folds written beside a data set, and the subtrain / validation split. Two rules:

- :func:`deal_folds`: the groups (in the order they first appear) taken in a random
  order drawn from ``seed``, each into the fold of least weight so far (the first on
  ties); with one sequence per group and unit weights this is a random permutation
  dealt in turn, so folds differ in size by at most one;
- :func:`alternate_split`: the group labels in sorted order sent alternately to subtrain
  and validation (the paper's alternation of sorted ids, Fowler & Hocking 2024).

Both are deterministic: the same ids, groups and seed give the same folds
(:func:`alternate_split` whatever the order of the rows).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["alternate_split", "check_n_folds", "deal_folds", "singletons"]


def _sorted(labels) -> list:
    """Labels in their natural order (by their text when they do not compare)."""
    try:
        return sorted(labels)
    except TypeError:
        return sorted(labels, key=str)


def check_n_folds(name: str, k) -> int:
    """``k`` as an int >= 2, else a ``ValueError`` naming ``name`` (bools are refused).

    Examples
    --------
    >>> check_n_folds("cv_folds", 3)
    3
    >>> check_n_folds("cv_folds", 2.5)
    Traceback (most recent call last):
    ...
    ValueError: cv_folds must be an integer >= 2, got 2.5
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"{name} must be an integer >= 2, got {k!r}")
    return int(k)


def singletons(ids) -> pd.Series:
    """Each id its own group (a Series indexed by the ids, named ``sequence_id``).

    Examples
    --------
    >>> singletons(["a", "b"]).tolist()
    [0, 1]
    """
    ids = list(ids)
    return pd.Series(np.arange(len(ids)), index=pd.Index(ids, name="sequence_id"))


def deal_folds(groups: pd.Series, k: int, seed=0, weights: pd.Series | None = None
               ) -> pd.Series:
    """Deal whole groups into ``k`` folds of about equal weight.

    Parameters
    ----------
    groups : Series
        The group of each example, indexed by example id.
    k : int
        The number of folds (>= 2). With fewer groups than ``k`` only as many folds are
        used as there are groups.
    seed : int, None or numpy Generator
        The random order of the groups (a permutation of them in the order they first
        appear in ``groups``).
    weights : Series, optional
        Weight of each example (e.g. its number of labels), indexed as ``groups``;
        default 1 (folds of about equal numbers of examples).

    Returns
    -------
    Series
        The fold (0..k−1) of each example, indexed as ``groups``, named ``fold``.

    Examples
    --------
    >>> g = pd.Series(["a", "a", "b", "b", "c", "c"], index=list("uvwxyz"))
    >>> f = deal_folds(g, 3, seed=0)
    >>> bool((f.groupby(g).nunique() == 1).all()), sorted(f.value_counts().tolist())
    (True, [2, 2, 2])
    """
    k = check_n_folds("k", k)
    w = pd.Series(1.0, index=groups.index) if weights is None else \
        weights.reindex(groups.index).astype(float)
    names = list(pd.unique(groups))
    per_group = w.groupby(groups.to_numpy()).sum()
    order = np.random.default_rng(seed).permutation(len(names))
    load = np.zeros(k)
    fold_of = {}
    for i in order:
        f = int(np.argmin(load))  # the fold of least weight so far (first on ties)
        fold_of[names[i]] = f
        load[f] += per_group[names[i]]
    return groups.map(fold_of).astype(int).rename("fold")


def alternate_split(groups: pd.Series) -> tuple[list, list]:
    """Subtrain and validation ids holding out whole groups, alternately by sorted label.

    Parameters
    ----------
    groups : Series
        Group label per example id (index); each example its own group:
        ``alternate_split(singletons(sorted(ids)))``.

    Returns
    -------
    (subtrain ids, validation ids)
        Each in the order of ``groups``. With a single group a ValueError is raised.

    Examples
    --------
    >>> g = pd.Series(["r2", "r1", "r1", "r3"], index=["a", "b", "c", "d"])
    >>> alternate_split(g)
    (['b', 'c', 'd'], ['a'])
    """
    labels = _sorted(pd.unique(groups))
    if len(labels) < 2:
        raise ValueError(f"groups: need at least 2 groups to hold one out, got {labels}")
    to_val = {g: k % 2 == 1 for k, g in enumerate(labels)}
    is_val = np.array([to_val[g] for g in groups.to_numpy()], dtype=bool)
    ids = groups.index.to_numpy()
    return list(ids[~is_val]), list(ids[is_val])
