#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/reorder/test_dissector.py (package nettwin.reorder.test_dissector)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.reorder import test_dissector as _m  # noqa: E402

sys.exit(_m.main())
