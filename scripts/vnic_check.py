#!/usr/bin/python3
"""Independent checker of `nettwin vnic` (encap | decap | roundtrip); see scripts/nettwin/vnic/check.py."""
import sys

from nettwin.vnic import check

if __name__ == "__main__":
    sys.exit(check.main())
