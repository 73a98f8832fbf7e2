"""The layer of every position of a trajectory, replayed with the exact rules.

A `Trajectory` stores positions and accelerations only; on a track with a bridge
the same (x, y) can be on the ground (in the tunnel) or on the elevated deck
(on the bridge). Pictures need to tell them apart, so this replays the moves
from the car's initial state with `racecert.model.rules.apply_move` (the exact
reference) and reads the layer after each move.
"""

from __future__ import annotations

from racecert.analysis.trajectory import Trajectory
from racecert.model.rules import CarState, apply_move
from racecert.model.track import Track


class ReplayError(ValueError):
    """A trajectory that is not a legal sequence of moves on the track."""


def position_layers(track: Track, trajectory: Trajectory) -> tuple[int, ...]:
    """The layer at P0..Pm (P0 is on the car's layer).

    Raises `ReplayError` if a move is illegal or a position does not match the
    replay (a trajectory from another track or start).

    >>> # position_layers(ocho, analysis.yellow_trajectory)[:3] -> (0, 0, 0)
    """
    if trajectory.positions[0] != track.car.position:
        raise ReplayError(f"the trajectory starts at {trajectory.positions[0]}, "
                          f"the car at {track.car.position}")
    state = CarState(*track.car.position, layer=track.car.layer)
    layers = [state.layer]
    for i, accel in enumerate(trajectory.accelerations):
        move = apply_move(track, state, accel)
        if not move.valid or move.state is None:
            raise ReplayError(f"move {i + 1} is not legal: {move.reason}")
        state = move.state
        if (state.x, state.y) != trajectory.positions[i + 1]:
            raise ReplayError(f"move {i + 1} ends at {(state.x, state.y)}, the trajectory "
                              f"says {trajectory.positions[i + 1]}")
        layers.append(state.layer)
    return tuple(layers)


def layer_runs(layers: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """Maximal runs of moves drawn on one layer: (first position, last position, layer).

    A move belongs to the higher of its two end layers (a move onto or off a ramp
    is drawn with the bridge), so every move is in exactly one run and
    consecutive runs share their boundary position.

    >>> layer_runs((0, 0, 1, 1, 0))
    [(0, 1, 0), (1, 4, 1)]
    >>> layer_runs((0, 0, 0))
    [(0, 2, 0)]
    """
    runs: list[tuple[int, int, int]] = []
    for i in range(len(layers) - 1):
        lay = max(layers[i], layers[i + 1])
        if runs and runs[-1][2] == lay:
            runs[-1] = (runs[-1][0], i + 1, lay)
        else:
            runs.append((i, i + 1, lay))
    return runs
