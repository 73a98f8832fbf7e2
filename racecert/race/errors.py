"""Why a race cannot be set up (the command line reports it as bad input, exit 2)."""

from __future__ import annotations


class RaceSetupError(ValueError):
    """A race that cannot start as asked: more cars than the grid holds, several laps of
    a stage, an unknown or unloadable driver, a bad parameter. The message is one line
    naming what is wrong."""


class DriverError(RuntimeError):
    """A driver raised an exception while deciding: the message names the car and driver."""
