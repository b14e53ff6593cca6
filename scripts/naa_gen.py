#!/usr/bin/python3
"""NAAICE endpoint: entry point of scripts/nettwin/naa/gen.py (see its docstring and docs/naa.md)."""
import sys

from nettwin.naa.gen import main

if __name__ == "__main__":
    sys.exit(main())
