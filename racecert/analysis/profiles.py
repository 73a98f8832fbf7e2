"""The analysis layer's registry of rule profiles: one `AnalysisProfile` per model
profile (`racecert.model.profiles.PROFILES`), found from a track by its type.

>>> from racecert.model.bundled import track_path
>>> from racecert.model.parse import load_track
>>> [analysis_profile(load_track(track_path(n))) for n in ("ocho", "cellpath/hairpin")]
[GridAnalysisProfile('grid'), StartListAnalysisProfile('cell-path')]

The command line (`racecert analyze`), the API (`racecert.analyze`) and the batch ask
this registry for a track's pipeline, refusals, picture, report rows and moves table;
none of them branches on the profile. A new profile adds its `AnalysisProfile` subclass
(in its own folder, as `racecert.analysis.lattice`) and one entry here
(docs/architecture.md, "Adding a rule profile").
"""

from __future__ import annotations

from racecert.analysis.base import AnalysisProfile
from racecert.analysis.grid_profile import GridAnalysisProfile
from racecert.analysis.lattice.profile import StartListAnalysisProfile
from racecert.model.profiles import CELL_PATH, GRID, LATTICE, PROFILES, profile_of

ANALYSIS_PROFILES: dict[str, AnalysisProfile] = {
    GRID.name: GridAnalysisProfile(GRID),
    LATTICE.name: StartListAnalysisProfile(LATTICE),
    CELL_PATH.name: StartListAnalysisProfile(CELL_PATH),
}
"""Each model profile's `AnalysisProfile`, keyed by `Profile.name`."""
if set(ANALYSIS_PROFILES) != {p.name for p in PROFILES}:  # a profile without its analysis
    raise ImportError("racecert.analysis.profiles: not every rule profile is registered")


def analysis_profile(track: object) -> AnalysisProfile:
    """The `AnalysisProfile` of `track`'s rule profile (`profile_of`: by its type;
    `TypeError` for anything that is no track)."""
    return ANALYSIS_PROFILES[profile_of(track).name]
