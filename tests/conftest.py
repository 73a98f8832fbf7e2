"""Test-suite configuration.

Hypothesis: no per-example deadline (the suite runs on loaded 2-core machines,
where a timing limit would only make tests flaky; speed is measured by the
benchmark, never by tests), and failures print a reproduction blob. Set
HYPOTHESIS_PROFILE=thorough for ten times the examples in a longer run.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("racecert", deadline=None, print_blob=True)
settings.register_profile("thorough", parent=settings.get_profile("racecert"),
                          max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "racecert"))
