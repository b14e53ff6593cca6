"""Compares the frames of two captures byte for byte, in order (not the files: pcap headers and timestamps
differ between tools). Used where a peer's own expected output is the reference, e.g. udplb's test-1.

    python3 -m nettwin.common.frames_equal GOT.pcap EXPECTED.pcap
"""
import sys

from nettwin.common.pcap import InputError, read_pcap


def first_difference(got, exp):
    """None if equal, else a one-line description of the first difference."""
    for k, ((g, _), (e, _)) in enumerate(zip(got, exp)):
        if g != e:
            if len(g) != len(e):
                return "frame %d: %d bytes, expected %d" % (k, len(g), len(e))
            i = next(i for i in range(len(g)) if g[i] != e[i])
            return "frame %d byte %d: 0x%02x, expected 0x%02x" % (k, i, g[i], e[i])
    if len(got) != len(exp):
        return "%d frames, expected %d" % (len(got), len(exp))
    return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: frames_equal.py GOT.pcap EXPECTED.pcap", file=sys.stderr)
        return 2
    try:
        got, exp = read_pcap(argv[0]), read_pcap(argv[1])
    except InputError as e:
        print("frames_equal: %s" % e, file=sys.stderr)
        return 2
    diff = first_difference(got, exp)
    if diff:
        print("frames_equal: %s differs from %s: %s" % (argv[0], argv[1], diff))
        return 1
    print("frames_equal: %d frames equal" % len(exp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
