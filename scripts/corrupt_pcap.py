#!/usr/bin/env python3
"""Command-line entry point; the code is in nettwin/common/corrupt_pcap.py (package nettwin.common.corrupt_pcap)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nettwin.common import corrupt_pcap as _m  # noqa: E402

sys.exit(_m.main())
