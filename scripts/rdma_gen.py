#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/rdma/gen.py (package nettwin.rdma.gen)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.rdma import gen as _m  # noqa: E402

sys.exit(_m.main())
