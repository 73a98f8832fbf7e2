"""The numba options the kernels share (racecert.model.jit)."""

from __future__ import annotations

import doctest

import numba
import numpy as np
import pytest
from numba import njit

from racecert.model import jit
from racecert.model.jit import NO_REFCOUNT


def test_jit_doctest() -> None:
    failures, tries = doctest.testmod(jit)
    assert tries > 0 and failures == 0


def test_the_installed_numba_compiles_without_reference_counting() -> None:
    """The numba this project installs has the option (yellow's speed relies on it), and a
    kernel compiled with it that allocates is refused rather than run."""
    assert NO_REFCOUNT == {"_nrt": False}, numba.__version__

    @njit(**NO_REFCOUNT)
    def fill(out):
        for i in range(len(out)):
            out[i] = i * i

    @njit(**NO_REFCOUNT)
    def allocates(n):
        return np.zeros(n).sum()

    out = np.empty(4, dtype=np.int64)
    fill(out)
    assert out.tolist() == [0, 1, 4, 9]
    with pytest.raises(Exception, match="(?i)nrt|runtime|allocat"):
        allocates(3)
