"""Drivers by name: the built-in ones, and user drivers loaded from Python code.

A driver spec is one of

- `alonso`, `amateur`: the built-in drivers (default parameters);
- `package.module:NAME`: NAME from an importable module;
- `path/to/file.py:NAME`: NAME from a Python file.

NAME may be a class (instantiated without arguments, one instance per car), or any
other callable (used as it is: a plain function is a driver). See
`racecert.race.driver` for the interface and docs/races.md for an example.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Callable
from pathlib import Path

from racecert.race.alonso import Alonso
from racecert.race.amateur import Amateur
from racecert.race.driver import Driver
from racecert.race.errors import RaceSetupError

BUILTIN: dict[str, Callable[[], Driver]] = {"alonso": Alonso, "amateur": Amateur}


def _load_module(where: str, spec: str) -> object:
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise RaceSetupError(f"--driver {spec}: no such file {where}")
        mspec = importlib.util.spec_from_file_location(f"racecert_user_driver_{path.stem}",
                                                       path)
        if mspec is None or mspec.loader is None:
            raise RaceSetupError(f"--driver {spec}: cannot load {where} as Python")
        module = importlib.util.module_from_spec(mspec)
        try:
            mspec.loader.exec_module(module)
        except Exception as exc:
            raise RaceSetupError(f"--driver {spec}: loading {where} raised "
                                 f"{type(exc).__name__}: {exc}") from exc
        return module
    try:
        return importlib.import_module(where)
    except Exception as exc:
        raise RaceSetupError(f"--driver {spec}: cannot import {where} "
                             f"({type(exc).__name__}: {exc})") from exc


def make_driver(spec: str) -> Driver:
    """A fresh driver for one car from `spec` (module docstring); `RaceSetupError` if the
    spec names nothing usable."""
    if spec in BUILTIN:
        return BUILTIN[spec]()
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise RaceSetupError(f"--driver {spec}: unknown driver; use one of "
                             f"{', '.join(BUILTIN)}, MODULE:NAME or FILE.py:NAME")
    module = _load_module(where, spec)
    target = getattr(module, name, None)
    if target is None:
        raise RaceSetupError(f"--driver {spec}: {where} has no attribute {name!r}")
    if inspect.isclass(target):
        try:
            target = target()
        except Exception as exc:
            raise RaceSetupError(f"--driver {spec}: {name}() raised "
                                 f"{type(exc).__name__}: {exc}") from exc
    if not callable(target):
        raise RaceSetupError(f"--driver {spec}: {name} is not callable (a driver is called "
                             "with the car's view and returns an acceleration)")
    return target
