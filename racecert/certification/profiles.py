"""The certification layer's registry of rule profiles: one `CertificationProfile` per
model profile (`racecert.model.profiles.PROFILES`), found from a track by its type.

>>> from racecert.model.bundled import track_path
>>> from racecert.model.parse import load_track
>>> p = certification_profile(load_track(track_path("cellpath/hairpin")))
>>> p, p.certificate_type.__name__, p.step_count()
(StartListCertification('cell-path'), 'LatticeCertificate', 3)

A profile offers its `certify` (the analysis and its checks, judged by `Judged`), its
`checks` (and so the `step_count` of a progress display), its certificate type and the
`certify` keywords its run uses (`options`; the others are no part of its certificate).
`racecert certify`, `racecert.certify` and the batch call `certify` here, never a
profile's own function. A new profile adds its subclass (or an instance of one below
with its checks) and one entry here (docs/architecture.md, "Adding a rule profile").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, ClassVar

from racecert.analysis.profiles import ANALYSIS_PROFILES
from racecert.certification import certificate
from racecert.certification.cellpath import checks as cellpath_checks
from racecert.certification.certificate import Certificate, Judged
from racecert.certification.context import NamedCheck
from racecert.certification.lattice import checks as lattice_checks
from racecert.certification.lattice.certificate import LatticeCertificate, certify_lattice
from racecert.model.profiles import CELL_PATH, GRID, LATTICE, PROFILES, Profile, profile_of

REPORTS = frozenset({"step", "progress", "work"})
"""The progress callbacks `certify` takes."""


class CertificationProfile(ABC):
    """What the certification layer offers for one rule profile (module docstring)."""

    certificate_type: ClassVar[type[Judged]]
    options: ClassVar[frozenset[str]]
    """The `certify` keywords the profile's run uses (limits, progress callbacks)."""

    def __init__(self, model: Profile, checks: tuple[NamedCheck, ...]) -> None:
        self.model = model
        self.checks = checks

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model.name!r})"

    @abstractmethod
    def step_count(self, checks: Iterable[Any] | None = None) -> int:
        """How many times `certify` calls `step` (the oracle runs and every check of
        `checks`, default the profile's): the total of a progress display."""

    def refusal(self, *, best_start: bool = False) -> tuple[str, str] | None:
        """(option, why) when the profile refuses `best_start` (the analysis profile's
        `refusal`), else None."""
        return ANALYSIS_PROFILES[self.model.name].refusal(best_start=best_start)

    def unused(self, given: Iterable[str]) -> list[str]:
        """The keywords of `given` this profile's certificate does not use (sorted)."""
        return sorted(set(given) - self.options)

    def certify(self, track: Any, *, best_start: bool = False, **options: Any) -> Judged:
        """The certificate of `track` (a track of this profile): its analysis and every
        check. `options` are `certify`'s keywords (`racecert.certify` lists them); those
        the profile does not use are left out (`unused`: the API refuses them). A
        refused `best_start` is a one-line `ValueError`."""
        refused = self.refusal(best_start=best_start)
        if refused is not None:
            raise ValueError(f"{refused[0]}: {refused[1]}")
        kept = {k: v for k, v in options.items() if k in self.options}
        return self.run(track, best_start=best_start, **kept)

    @abstractmethod
    def run(self, track: Any, *, best_start: bool, **options: Any) -> Judged:
        """`certify` once its options are sorted: the profile's own certificate."""


class GridCertification(CertificationProfile):
    """The grid rules' certificate (`racecert.certification.certificate.certify`)."""

    certificate_type = Certificate
    options = frozenset({*REPORTS, "budget", "checks", "cpsat_budget", "count_limit",
                         "max_states", "geometry_max_states", "continuity_max_states",
                         "workers", "out_dir"})

    def step_count(self, checks: Iterable[Any] | None = None) -> int:
        return certificate.step_count(None if checks is None else list(checks))

    def run(self, track: Any, *, best_start: bool, **options: Any) -> Judged:
        return certificate.certify(track, **options)  # looked up at call time (tests patch it)


class StartListCertification(CertificationProfile):
    """The certificate of a profile whose files list start positions (lattice, cell-path:
    `certify_lattice`, with the profile's checks): one oracle run, then the checks."""

    certificate_type = LatticeCertificate
    options = frozenset({"step", "budget", "checks", "cpsat_budget", "workers", "max_states",
                         "geometry_max_states"})

    def step_count(self, checks: Iterable[Any] | None = None) -> int:
        return 1 + len(list(self.checks if checks is None else checks))

    def run(self, track: Any, *, best_start: bool, **options: Any) -> Judged:
        options.setdefault("checks", self.checks)
        return certify_lattice(track, best_start=best_start, **options)


CERTIFICATION_PROFILES: dict[str, CertificationProfile] = {
    GRID.name: GridCertification(GRID, tuple(certificate.default_checks())),
    LATTICE.name: StartListCertification(LATTICE, lattice_checks.CHECKS),
    CELL_PATH.name: StartListCertification(CELL_PATH, cellpath_checks.CHECKS),
}
"""Each model profile's `CertificationProfile`, keyed by `Profile.name`."""
if set(CERTIFICATION_PROFILES) != {p.name for p in PROFILES}:  # a profile without one
    raise ImportError("racecert.certification.profiles: not every rule profile is registered")


def certification_profile(track: object) -> CertificationProfile:
    """The `CertificationProfile` of `track`'s rule profile (`profile_of`: by its type;
    `TypeError` for anything that is no track)."""
    return CERTIFICATION_PROFILES[profile_of(track).name]


def profiles_using(option: str) -> tuple[Profile, ...]:
    """The profiles whose certificate uses `certify` keyword `option` (for messages)."""
    return tuple(p.model for p in CERTIFICATION_PROFILES.values() if option in p.options)
