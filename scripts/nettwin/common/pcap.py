"""Pcap I/O and output alignment shared by the Python checkers (lb_*, rdma_*).

Independent of the C++ tools: Scapy reads and writes the files, so a pcap this module accepts is one
any libpcap tool accepts.
"""


class InputError(Exception):
    pass


def read_pcap(path):
    """[(frame bytes, timestamp)] of an Ethernet pcap/pcapng; InputError on anything else."""
    from scapy.utils import RawPcapReader
    try:
        rd = RawPcapReader(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except Exception as e:  # Scapy raises Scapy_Exception / OSError for non-pcap files
        raise InputError(f"{path}: not a readable pcap file ({e})") from None
    frames = []
    try:
        if getattr(rd, "linktype", 1) != 1:
            raise InputError(f"{path}: link type {rd.linktype}, expected 1 (Ethernet)")
        frac = 1e9 if getattr(rd, "nano", False) else 1e6   # nanosecond pcaps (magic a1b23c4d)
        try:
            for data, meta in rd:
                wirelen = getattr(meta, "wirelen", None)
                if wirelen is not None and wirelen != len(data):
                    raise InputError(f"{path}: frame {len(frames) + 1} has only {len(data)} of its "
                                     f"{wirelen} bytes (truncated file or snaplen-limited capture)")
                if hasattr(meta, "sec"):
                    ts = meta.sec + meta.usec / frac
                else:
                    ts = ((meta.tshigh << 32) | meta.tslow) / (meta.tsresol or 1e6)
                frames.append((bytes(data), ts))
        except InputError:
            raise
        except Exception as e:
            raise InputError(f"{path}: corrupt pcap after {len(frames)} frames ({e})") from None
    finally:
        rd.close()
    return frames



def write_pcap(path, frames, nano=False):
    """Write [(bytes, ts)] as a classic little-endian Ethernet pcap (microsecond timestamps; nano=True:
    nanosecond timestamps, magic a1b23c4d)."""
    from scapy.utils import RawPcapWriter
    per = 1000000000 if nano else 1000000
    with RawPcapWriter(path, linktype=1, sync=False, snaplen=65535, nano=nano) as w:
        w.write_header(None)
        for data, ts in frames:
            t = int(round(ts * per))
            w.write_packet(data, sec=t // per, usec=t % per)




def align(exp, got, window=64):
    """Greedy alignment of expected and actual output frames.  Yields (kind, k, j): 'same' and
    'diff' pair expected k with output j; 'missing' = expected k absent (j = where it belonged);
    'extra' = output j not expected (k = the expected packet at that point)."""
    k = j = 0
    while k < len(exp) or j < len(got):
        if k >= len(exp):
            yield "extra", k, j
            j += 1
        elif j >= len(got):
            yield "missing", k, j
            k += 1
        elif exp[k] == got[j]:
            yield "same", k, j
            k += 1
            j += 1
        else:
            skip_exp = next((d for d in range(1, window) if k + d < len(exp) and exp[k + d] == got[j]), None)
            skip_got = next((d for d in range(1, window) if j + d < len(got) and got[j + d] == exp[k]), None)
            if skip_exp is not None and (skip_got is None or skip_exp <= skip_got):
                for d in range(skip_exp):
                    yield "missing", k + d, j
                k += skip_exp
            elif skip_got is not None:
                for d in range(skip_got):
                    yield "extra", k, j + d
                j += skip_got
            else:
                yield "diff", k, j
                k += 1
                j += 1
