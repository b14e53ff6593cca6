"""The blocks the regression knows, in the order it runs and reports them. A new block adds its
`nettwin/<block>/runs.py` (API: nettwin/regress/run.py) and one line here."""
import importlib

BLOCKS = {
    "lb": "nettwin.lb.runs",
    "rdma": "nettwin.rdma.runs",
    "reorder": "nettwin.reorder.runs",
}


def block_module(name):
    return importlib.import_module(BLOCKS[name])
