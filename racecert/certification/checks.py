"""The one list of checks `racecert certify` runs, in order, each with its progress label
and the kind of method it is (`MethodKind`: what a figure's `confirmed_by` names).

Adding a check means adding a line here; the check modules import only
`racecert.certification.context`, never the certificate or each other's checks. The SAT
checks of m* name their own kinds per result (a lower bound with a checked proof, an
upper bound as a replayed model), as does SAT continuity (see its module).
"""

from __future__ import annotations

from racecert.certification.checks_cpsat import (
    check_continuity,
    check_count,
    check_geometry,
    check_m_star,
)
from racecert.certification.context import MethodKind, NamedCheck
from racecert.certification.dag_checks import check_dag_figures
from racecert.certification.displacement_checks import check_m_star_displacement
from racecert.certification.green_blue_checks import check_green_blue, check_green_blue_dag
from racecert.certification.kinematics_checks import check_m_star_kinematics
from racecert.certification.laps_checks import check_kind, check_m_cont, check_m_cont_editor
from racecert.certification.sat_checks import check_sat
from racecert.certification.sat_continuity_checks import check_sat_continuity
from racecert.certification.search_checks import check_move_validity, check_search

SECOND = MethodKind.SECOND_IMPLEMENTATION
MODEL = MethodKind.SOLVER_MODEL

CHECKS: tuple[NamedCheck, ...] = (
    NamedCheck("move validity on every explored state: model rules vs fastgeom",
               check_move_validity, SECOND),
    NamedCheck("reachable, m*, counts, final states: independent search + count certificate",
               check_search, SECOND),
    NamedCheck("move validity: model rules vs the independent geometry", check_geometry,
               SECOND),
    NamedCheck("m* by CP-SAT: nothing within m*-1 moves, a replayed witness at m*",
               check_m_star, MODEL),
    NamedCheck("m* by CP-SAT integer kinematics: nothing within m*-1 moves, a replayed "
               "witness at m* (moves that replay invalid cut off)", check_m_star_kinematics,
               MODEL),
    NamedCheck("m* lower bound by the displacement CNF (|x_t - x_{t-1}| <= t per axis): "
               "nothing within m*-1 moves, DRUP proof checked", check_m_star_displacement),
    NamedCheck("optimal count by CP-SAT enumeration", check_count, MethodKind.ENUMERATION),
    NamedCheck("continuity of the optimal final states by CP-SAT", check_continuity, MODEL),
    NamedCheck("continuity of every optimal final state by SAT: replayed models, checked "
               "proofs", check_sat_continuity),
    NamedCheck("kind: a continuable first-lap arrival, by the independent search", check_kind,
               SECOND),
    NamedCheck("m_cont: the first continuable arrival, by the independent search",
               check_m_cont, SECOND),
    NamedCheck("m_cont in the editor key (null reason included) vs the independent search",
               check_m_cont_editor, SECOND),
    NamedCheck("m* by SAT: checked DRUP lower bound, replayed upper bound", check_sat),
    NamedCheck("green/blue by CP-SAT optimisation: exact extreme lengths and ties",
               check_green_blue, MODEL),
    NamedCheck("green/blue by CP-SAT over the independent search's optimal DAG: exact "
               "extreme lengths and ties", check_green_blue_dag, MODEL),
    NamedCheck("green/blue, yellow, coverage, score over the independent DAG",
               check_dag_figures, SECOND),
)
