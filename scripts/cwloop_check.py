#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/cwloop/check.py (package nettwin.cwloop.check)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.cwloop import check as _m  # noqa: E402

sys.exit(_m.main())
