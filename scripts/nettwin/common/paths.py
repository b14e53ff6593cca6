"""Where the package sits in the repository: the scripts/ folder (the command-line entry points and the
tshark Lua dissectors) and the repository root (vectors/)."""
import os

SCRIPTS_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT_DIR = os.path.dirname(SCRIPTS_DIR)
DISSECTORS_DIR = os.path.join(SCRIPTS_DIR, "dissectors")
