#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/lb/udplb_plan_check.py (package nettwin.lb.udplb_plan_check)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.lb import udplb_plan_check as _m  # noqa: E402

sys.exit(_m.main())
