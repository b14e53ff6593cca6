#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/lb/check.py (package nettwin.lb.check)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.lb import check as _m  # noqa: E402

sys.exit(_m.main())
