#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/reroute/gen.py (package nettwin.reroute.gen)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.reroute import gen as _m  # noqa: E402

sys.exit(_m.main())
