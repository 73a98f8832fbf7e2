"""One home for numba options the compiled kernels share.

`NO_REFCOUNT` compiles a kernel without numba's reference counting (its `_nrt` option).
numba counts the references of every array argument and view on each call with atomic
instructions, and does not remove them from kernels that call one another once per
state: in yellow's search (`racecert.oracle.yellow_kernel`) that was about a fifth of
its time. A kernel compiled so may not allocate (numba refuses to compile one that
does), so yellow's kernels take their scratch arrays from the caller.

The option is numba's own but private (an underscore), so it is looked up instead of
assumed: where a numba lacks it, `NO_REFCOUNT` is empty and the kernels compile as usual
(the same results, only slower).

>>> NO_REFCOUNT in ({"_nrt": False}, {})
True
"""

from __future__ import annotations


def _no_refcount() -> dict[str, bool]:
    """{"_nrt": False} where this numba has the option, else {}."""
    try:
        from numba.core.cpu import CPUTargetOptions
    except ImportError:
        return {}
    return {"_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {}


NO_REFCOUNT: dict[str, bool] = _no_refcount()
