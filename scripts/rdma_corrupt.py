#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/rdma/corrupt.py (package nettwin.rdma.corrupt)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.rdma import corrupt as _m  # noqa: E402

sys.exit(_m.main())
