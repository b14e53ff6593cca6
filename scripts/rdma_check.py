#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/rdma/check.py (package nettwin.rdma.check)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.rdma import check as _m  # noqa: E402

sys.exit(_m.main())
