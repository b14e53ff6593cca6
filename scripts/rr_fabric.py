#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/reroute/fabric.py (package nettwin.reroute.fabric)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.reroute import fabric as _m  # noqa: E402

sys.exit(_m.main())
