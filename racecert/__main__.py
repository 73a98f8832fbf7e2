"""`python -m racecert ...`: the same command line as `racecert ...`."""

import sys

from racecert.cli import main

if __name__ == "__main__":
    sys.exit(main())
