"""Pcap files of one expected link type (Ethernet = 1, DLT_USER0 = 147 for OPA 16B), through Scapy only."""
from .ref import InputError


def read_pcap(path, linktype):
    """[bytes] of a classic pcap whose link type is `linktype`; InputError otherwise."""
    from scapy.utils import RawPcapReader
    try:
        rd = RawPcapReader(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except Exception as e:
        raise InputError(f"{path}: not a readable pcap file ({e})") from None
    out = []
    try:
        if getattr(rd, "linktype", None) != linktype:
            raise InputError(f"{path}: link type {getattr(rd, 'linktype', '?')}, expected {linktype}")
        try:
            for data, meta in rd:
                wirelen = getattr(meta, "wirelen", None)
                if wirelen is not None and wirelen != len(data):
                    raise InputError(f"{path}: packet {len(out) + 1} truncated ({len(data)} of {wirelen} bytes)")
                out.append(bytes(data))
        except InputError:
            raise
        except Exception as e:
            raise InputError(f"{path}: corrupt pcap after {len(out)} packets ({e})") from None
    finally:
        rd.close()
    return out


def write_pcap(path, packets, linktype):
    from scapy.utils import RawPcapWriter
    with RawPcapWriter(path, linktype=linktype, sync=False, snaplen=65535) as w:
        w.write_header(None)
        for i, data in enumerate(packets):
            w.write_packet(data, sec=i // 1000000, usec=i % 1000000)
