"""Where things are: the directory that holds the package (scripts/ in the source tree, site-packages once
installed), the repository root (vectors/, scripts/dissectors/) and the interpreter the tools run under.

Run from the tree, the package needs scripts/ on the path: `PYTHONPATH=scripts /usr/bin/python3 -m
nettwin.lb.gen ...` from the repository root (or any directory, with an absolute PYTHONPATH). Installed (`pip
install .`, pyproject.toml), the same modules are importable anywhere and have console commands
(`nettwin-lb-gen ...`) and the Lua dissectors come along (package data nettwin/dissectors/); the files that live
outside the package (vectors/, rtl/) are then found through NETTWIN_ROOT=<repository root>."""
import os

PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS_DIR = PACKAGE_PARENT  # the source tree's scripts/ (kept name: the tests and tools say SCRIPTS_DIR)
ROOT_DIR = os.environ.get("NETTWIN_ROOT") or os.path.dirname(PACKAGE_PARENT)
# the tshark Lua dissectors, all in scripts/dissectors/; installed, they are the package data nettwin/dissectors/
_INSTALLED_DISSECTORS = os.path.join(PACKAGE_PARENT, "nettwin", "dissectors")
DISSECTORS_DIR = (_INSTALLED_DISSECTORS if os.path.isdir(_INSTALLED_DISSECTORS)
                  else os.path.join(ROOT_DIR, "scripts", "dissectors"))
# the block descriptors (rtl/<dir>/data/<block>.json) and rtl/common/nt_pkg.sv; installed, the package data
# nettwin/rtl/ (the same files, pyproject.toml)
_INSTALLED_RTL = os.path.join(PACKAGE_PARENT, "nettwin", "rtl")
DESCRIPTOR_RTL_DIR = (_INSTALLED_RTL if os.path.isdir(_INSTALLED_RTL) and not os.environ.get("NETTWIN_ROOT")
                      else os.path.join(ROOT_DIR, "rtl"))

PY = "/usr/bin/python3"  # the interpreter that has Scapy (Debian's python3-scapy)


def pythonpath():
    """PYTHONPATH with the package's parent first (so a child `python3 -m nettwin...` imports this very copy)."""
    old = os.environ.get("PYTHONPATH", "")
    parts = [PACKAGE_PARENT] + [p for p in old.split(os.pathsep) if p and p != PACKAGE_PARENT]
    return os.pathsep.join(parts)


def export_pythonpath():
    """Put the package's parent on this process's PYTHONPATH, so every child process inherits it."""
    os.environ["PYTHONPATH"] = pythonpath()
