"""matplotlib for the report, headless (Agg), and the steps every block's plots() ends with."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from nettwin.regress.run import Figure  # noqa: E402

__all__ = ["plt", "save", "finish"]


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=96)
    plt.close(fig)


def finish(fig, ax, xlabel, ylabel, out_dir, name, title, caption):
    """Labels the axes, adds the legend, writes out_dir/name; the report's list of this one figure."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    path = os.path.join(out_dir, name)
    save(fig, path)
    return [Figure(title, path, caption)]
