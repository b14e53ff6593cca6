#!/usr/bin/python3
"""Random-configuration soak in lockstep (`make soak SOAK_PACKETS=N`): entry point of nettwin.regress.soak.

  /usr/bin/python3 scripts/soak.py [--packets N] [--blocks lb,rdma,reorder,vnic] [--seed S] [--timings K]
                                   [--build DIR] [--work DIR] [--keep]
See `--help` and scripts/nettwin/regress/soak.py.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.regress.soak import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
