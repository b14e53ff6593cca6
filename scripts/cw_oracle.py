#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/reorder/oracle.py (package nettwin.reorder.oracle)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.reorder import oracle as _m  # noqa: E402

sys.exit(_m.main())
