#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/re/loop.py (package nettwin.re.loop)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.re import loop as _m  # noqa: E402

sys.exit(_m.main())
