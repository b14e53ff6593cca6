#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/re/check.py (package nettwin.re.check)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.re import check as _m  # noqa: E402

sys.exit(_m.main())
