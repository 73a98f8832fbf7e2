"""The compiled BFS kernel against the figures of the implementation it replaced.

The values below were produced by the sorted-array BFS (numpy, stored edges) at commit
325f32c on generated tracks of each shape: m*, the exact count (193 digits on the
serpentine), final states, states explored and the optimal DAG's size, in both keys.
"""

from __future__ import annotations

import pytest

from benchmarks.generate import corridor, open_area, serpentine
from racecert.model.parse import parse_track
from racecert.oracle.bfs import layered_bfs

SERPENTINE_40 = int(
    "1025832250357571095311810781622870038656028649367404713477859150061249432430821031"
    "7956055644616116487741265987253980197475172955360489220881210100143914905477849397"
    "89876530816485200187605889170")
CASES = {
    "serpentine 40 plies of 40x5": (serpentine(40, 40, 5, 5),
                                    (476, SERPENTINE_40, 136, 313926, 55094)),
    "corridor 1000x5": (corridor(1000, 5), (45, 19035573364823589, 77, 179861, 8059)),
    "open 120x120": (open_area(120, 60, 100), (14, 70258035, 14928, 754401, 15604)),
}


@pytest.mark.parametrize("mode", ["exact", "editor"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_figures_of_the_previous_implementation(name: str, mode: str) -> None:
    text, want = CASES[name]
    r = layered_bfs(parse_track(text.encode(), name), mode)
    assert r.dag is not None
    assert (r.m_star, r.optimal_count, r.final_states, r.states_explored, r.dag.size) == want
    assert sum(r.arrival_counts) == r.optimal_count
