"""Run every benchmark section and write BENCHMARKS.md (`make bench`).

A section is any module `benchmarks/bench_*.py` that defines `section() -> str`
(markdown); sections run in alphabetical order of their module names, each in
its own subprocess (so one section's memory or crash cannot touch another), and
each is reported with its wall time and the peak RSS of its process. A section
that raises, exits abnormally or runs past `--timeout` is reported as failed,
with the end of its error output; the others still run. Add a benchmark by adding
a module: this file needs no edit.

    python -m benchmarks.run --out BENCHMARKS.md            # all sections
    python -m benchmarks.run --only bench_bfs --out -        # one section, to stdout
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


@dataclass(frozen=True)
class SectionRun:
    """The outcome of one section: its markdown, or why there is none."""

    module: str
    ok: bool
    markdown: str
    seconds: float
    peak_mb: float
    error: str = ""


def discover(only: list[str] | None = None) -> list[str]:
    """Module names `benchmarks.bench_*` with a file in benchmarks/, alphabetically.

    >>> "benchmarks.bench_bfs" in discover()
    True
    """
    names = sorted(p.stem for p in HERE.glob("bench_*.py"))
    if only:
        missing = sorted(set(only) - set(names))
        if missing:
            raise SystemExit(f"no such benchmark module: {', '.join(missing)} "
                             f"(have: {', '.join(names)})")
        names = [n for n in names if n in only]
    return [f"benchmarks.{n}" for n in names]


def run_section(module: str, timeout: float) -> SectionRun:
    """Run `module.section()` in a fresh interpreter; its markdown comes back via a file."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "section.md"
        err = Path(tmp) / "stderr.txt"
        code = ("import importlib, sys, pathlib\n"
                f"m = importlib.import_module({module!r})\n"
                "if not callable(getattr(m, 'section', None)):\n"
                "    sys.exit('module defines no section() function')\n"
                "md = m.section()\n"
                "if not isinstance(md, str):\n"
                "    sys.exit(f'section() returned {type(md).__name__}, not str')\n"
                f"pathlib.Path({str(out)!r}).write_text(md, encoding='utf-8')\n")
        t0 = time.perf_counter()
        with open(err, "w", encoding="utf-8") as err_f:
            proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT,
                                    stdout=subprocess.DEVNULL, stderr=err_f)
            try:
                status, usage = _wait(proc.pid, timeout)
            except TimeoutError:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                return SectionRun(module, False, "", time.perf_counter() - t0,
                                  usage.ru_maxrss / 1024, f"timed out after {timeout:g} s")
        seconds = time.perf_counter() - t0
        peak = usage.ru_maxrss / 1024  # Linux reports kilobytes
        rc = os.waitstatus_to_exitcode(status)
        proc.returncode = rc
        if rc != 0 or not out.exists():
            tail = err.read_text(encoding="utf-8", errors="replace")[-3000:]
            return SectionRun(module, False, "", seconds, peak, f"exit status {rc}\n{tail}")
        return SectionRun(module, True, out.read_text(encoding="utf-8"), seconds, peak)


def _wait(pid: int, timeout: float) -> tuple[int, os.struct_rusage]:  # type: ignore[name-defined]
    """wait4 with a timeout (polling), returning (status, resource usage of that child)."""
    deadline = time.monotonic() + timeout
    while True:
        got, status, usage = os.wait4(pid, os.WNOHANG)
        if got == pid:
            return status, usage
        if time.monotonic() > deadline:
            raise TimeoutError
        time.sleep(0.05)


def machine() -> list[str]:
    """Markdown lines describing this machine and software."""
    import numpy

    cpu = "unknown"
    mem = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024**2:.1f} GiB"
                break
    except OSError:
        pass
    return [
        f"- CPU: {cpu}, {os.cpu_count()} logical cores; RAM: {mem}",
        f"- {platform.system()} {platform.release()}; Python {platform.python_version()}; "
        f"numpy {numpy.__version__}",
    ]


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def _commit() -> str:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                             capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, text=True, capture_output=True).stdout.strip()
        return rev + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def render(runs: list[SectionRun], started: str, load_before: str, load_after: str,
           command: str) -> str:
    """The whole BENCHMARKS.md."""
    lines = [
        "# Benchmarks",
        "",
        f"Generated by `{command}` on {started} (UTC), commit {_commit()}.",
        "",
        *machine(),
        f"- Load average (1, 5, 15 min) before: {load_before}; after: {load_after}. Other "
        "processes running at the same time slow wall times down; CPU times are reported "
        "where a section measures them.",
        "",
        "Sections (peak RSS: the largest process of the section, its subprocesses included):",
        "",
        "| section | ok | wall s | peak RSS MB |",
        "|---|---|---|---|",
        *(f"| `{r.module}` | {'yes' if r.ok else '**FAILED**'} | {r.seconds:.1f} | "
          f"{r.peak_mb:.0f} |" for r in runs),
        "",
    ]
    for r in runs:
        if r.ok:
            lines += [r.markdown.rstrip(), ""]
        else:
            lines += [f"## `{r.module}`: FAILED", "", "```", r.error.rstrip(), "```", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="BENCHMARKS.md", help="output file, '-' for stdout")
    ap.add_argument("--only", nargs="*", help="module names to run (e.g. bench_bfs)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per section")
    args = ap.parse_args(argv)
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M")
    command = "python -m benchmarks.run " + " ".join(argv if argv is not None else sys.argv[1:])
    load_before = _load()
    runs = []
    for module in discover(args.only):
        print(f"benchmark {module} ...", file=sys.stderr, flush=True)
        r = run_section(module, args.timeout)
        print(f"  {'ok' if r.ok else 'FAILED'} in {r.seconds:.1f} s", file=sys.stderr)
        runs.append(r)
    text = render(runs, started, load_before, _load(), command.strip())
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0  # a failed section is reported in the file, not fatal


if __name__ == "__main__":
    raise SystemExit(main())
