"""`python -m racecert ...`: the same command line as `racecert ...`."""

import sys

if __name__ == "__main__":
    try:
        from racecert.cli import main
    except KeyboardInterrupt:  # Ctrl-C while the modules load: the same one line as later
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(main())
