#!/usr/bin/env python3
"""nettwin regression (`make regress`): entry point of nettwin.regress (scripts/nettwin/regress/cli.py).

  /usr/bin/python3 scripts/regress.py [-j N] [--only lb|rdma|reorder]... [--seeds N] [--shard K/N] [--list]
                                      [--junit FILE] [--json FILE] [--report DIR] [--quick] [--build DIR]
See `--help` and scripts/README.md ("Regression").
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.regress.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
