"""Corrupted rule profiles for the certificate tests: an oracle that is wrong on purpose,
so that a check which should catch it is seen to disagree."""

from __future__ import annotations

import numpy as np

from racecert.model.rules import Expansion, StateArrays


def dropping_a_move(rules: type) -> type:
    """A subclass of the profile class `rules` whose `expand` forgets the last valid
    successor of every batch."""

    class DropsAMove(rules):  # type: ignore[misc, valid-type]
        def expand(self, batch: StateArrays) -> Expansion:
            e = super().expand(batch)
            keep = np.arange(max(len(e.src) - 1, 0))
            return Expansion(e.src[keep], e.succ.take(keep), e.arrive_src, e.arrive_state)

    return DropsAMove
