#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/lb/test_dissectors.py (package nettwin.lb.test_dissectors)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.lb import test_dissectors as _m  # noqa: E402

sys.exit(_m.main())
