"""The RDMA reference's responder (docs/rdma.md "Request processing"): request parsing on raw bytes
with its own ICRC, the drop checks, PSN / Go-Back-N and duplicates, the AQ lookup, validation,
execution of WRITE / READ / ATOMIC / SEND, responses and completions."""
import struct
import zlib

from nettwin.rdma.ref_config import (ACK_OP, AQE_BYTES, AQ_GROUP, ATOMIC_ACK_OP, CAS, CQE_SEND, CQE_WRITE_IMM,
                                     ETH_IPV4, ETH_IPV6, EXT, FAA, HALF, MAX_READ_LEN, PSN_MOD, READ_REQ,
                                     RESPONSE_OPS, ROCE_PORT, RR_FIRST, RR_LAST, RR_MIDDLE, RR_ONLY, SEND_OPS,
                                     SYN_ACCESS, SYN_ACK, SYN_INVALID, SYN_PSN_SEQ, SYN_RNR, S_FIRST, S_LAST,
                                     S_LAST_IMM, S_MIDDLE, S_ONLY, S_ONLY_IMM, WQE_BYTES, WRITE_OPS, W_FIRST,
                                     W_LAST, W_LAST_IMM, W_MIDDLE, W_ONLY, W_ONLY_IMM, OP_CNP, opname)
from nettwin.rdma.ref_state import CQE, Memory, QPState, Req, SendCtx, Verdict, WriteCtx, parse_wqe


# =============================================================================================
# ICRC (own implementation; check.py also checks with layers.check_icrc)


# =============================================================================================


def icrc_of(datagram, ipv6):
    """ICRC bytes for an IP datagram (IP header .. payload, without the ICRC)."""
    d = bytearray(datagram)
    if ipv6:
        hl = 40
        d[0] |= 0x0F
        d[1] = d[2] = d[3] = 0xFF
        d[7] = 0xFF
    else:
        hl = (d[0] & 0x0F) * 4
        d[1] = 0xFF
        d[8] = 0xFF
        d[10] = d[11] = 0xFF
    d[hl + 6] = d[hl + 7] = 0xFF
    d[hl + 12] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(d)) & 0xFFFFFFFF)


def ip4_checksum(hdr):
    s = sum((hdr[i] << 8) | hdr[i + 1] for i in range(0, len(hdr), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


class Responder:
    def __init__(self, cfg, aq_linear=False, atomic_endian="little"):
        self.cfg = cfg
        self.aq_linear = aq_linear or cfg.aq_linear
        self.endian = atomic_endian
        self.mem = Memory()
        for pa, data in cfg.mem:
            self.mem.write(pa, data)
        self.qps = {q: QPState(c) for q, c in cfg.qps.items()}
        self.st = {"acks": 0, "atomic_acks": 0, "read_responses": 0, "naks": {},
                   "atomics_executed": 0, "atomic_replays": 0, "read_replays": 0,
                   "writes_executed": 0, "reads_executed": 0, "sends_executed": 0,
                   "wqes_consumed": 0, "cqes_written": 0}
        self.cqes = []               # [CQE] in the order written
        self._wqe = None             # the WQE a SEND FIRST/ONLY read (send_check -> exec_send)

    # ---------------------------------------------------------------- parsing
    def parse(self, f):
        """Req, or (reason, detail) for runt / malformed."""
        n = len(f)
        if n < 14:
            return "runt", f"{n} bytes"
        et = (f[12] << 8) | f[13]
        if et == ETH_IPV4:
            if n < 34:
                return "runt", f"{n} bytes, IPv4 header incomplete"
            if f[14] >> 4 != 4 or f[14] & 0xF != 5:
                return "malformed", f"IPv4 version {f[14] >> 4} IHL {f[14] & 0xF} (no options allowed)"
            tot = (f[16] << 8) | f[17]
            if n < 14 + tot:
                return "runt", f"{n} bytes, IPv4 total length {tot}"
            if tot < 20 + 8 + 12 + 4:
                return "malformed", f"IPv4 total length {tot}"
            frag = (f[20] << 8) | f[21]
            if frag & 0x3FFF:
                return "malformed", f"IPv4 fragment (flags/offset 0x{frag:04x})"
            if f[23] != 17:
                return "malformed", f"IP protocol {f[23]}"
            l4, end, ipv6 = 34, 14 + tot, False
            src_ip, dst_ip = f[26:30], f[30:34]
        elif et == ETH_IPV6:
            if n < 54:
                return "runt", f"{n} bytes, IPv6 header incomplete"
            if f[14] >> 4 != 6:
                return "malformed", f"IPv6 version {f[14] >> 4}"
            plen = (f[18] << 8) | f[19]
            if n < 54 + plen:
                return "runt", f"{n} bytes, IPv6 payload length {plen}"
            if f[20] != 17:
                return "malformed", f"IPv6 next header {f[20]}"
            if plen < 8 + 12 + 4:
                return "malformed", f"IPv6 payload length {plen}"
            l4, end, ipv6 = 54, 54 + plen, True
            src_ip, dst_ip = f[22:38], f[38:54]
        else:
            return "malformed", f"EtherType 0x{et:04x}"
        dport = (f[l4 + 2] << 8) | f[l4 + 3]
        if dport != ROCE_PORT:
            return "malformed", f"UDP destination port {dport}"
        ulen = (f[l4 + 4] << 8) | f[l4 + 5]
        if ulen != end - l4:
            return "malformed", f"UDP length {ulen}, IP says {end - l4}"
        b = l4 + 8
        op = f[b]
        if f[b + 1] & 0x0F:
            return "malformed", f"BTH TVer {f[b + 1] & 0x0F}"
        if op not in EXT and op != OP_CNP:
            return "malformed", f"opcode 0x{op:02x} (not an RC opcode)"
        hdr = 12 + EXT.get(op, 0)  # a CNP: BTH + 16 reserved bytes, counted after its ICRC
        if ulen < 8 + hdr + 4:
            return "malformed", f"{opname(op)}: UDP length {ulen} too short for its headers"
        pad = (f[b + 1] >> 4) & 3
        data_len = ulen - 8 - hdr - 4
        if pad > data_len:
            return "malformed", f"pad count {pad} with {data_len} bytes after the headers"
        return Req(ipv6=ipv6, src_mac=f[6:12], dst_mac=f[0:6], src_ip=src_ip, dst_ip=dst_ip,
                   sport=(f[l4] << 8) | f[l4 + 1], opcode=op, ackreq=bool(f[b + 8] & 0x80),
                   dqpn=int.from_bytes(f[b + 5:b + 8], "big"),
                   psn=int.from_bytes(f[b + 9:b + 12], "big"),
                   ext=f[b + 12:b + hdr], payload=f[b + hdr:b + hdr + data_len - pad],
                   datagram=f[14:end])

    # ---------------------------------------------------------------- responses
    def response(self, r, q, opcode, psn, ext=b"", payload=b""):
        pad = (4 - len(payload) % 4) % 4 if opcode in (RR_FIRST, RR_MIDDLE, RR_LAST, RR_ONLY) else 0
        bth = (bytes([opcode, pad << 4, 0xFF, 0xFF, 0]) + q.conf.dest_qp.to_bytes(3, "big")
               + bytes([0]) + psn.to_bytes(3, "big"))
        l4 = bth + ext + payload + bytes(pad)
        ulen = 8 + len(l4) + 4
        udp = r.sport.to_bytes(2, "big") + ROCE_PORT.to_bytes(2, "big") + ulen.to_bytes(2, "big") + b"\0\0"
        if r.ipv6:
            ip = (bytes([0x60, 0, 0, 0]) + ulen.to_bytes(2, "big") + bytes([17, 64])
                  + self.cfg.ip6 + r.src_ip)
            et = ETH_IPV6
        else:
            ip = bytearray(bytes([0x45, 0]) + (20 + ulen).to_bytes(2, "big") + bytes([0, 0, 0x40, 0, 64, 17, 0, 0])
                           + self.cfg.ip4 + r.src_ip)
            ip[10:12] = ip4_checksum(ip).to_bytes(2, "big")
            ip = bytes(ip)
            et = ETH_IPV4
        dg = ip + udp + l4
        return r.src_mac + self.cfg.mac + et.to_bytes(2, "big") + dg + icrc_of(dg, r.ipv6)

    def aeth(self, syndrome, msn):
        return bytes([syndrome]) + msn.to_bytes(3, "big")

    def ack(self, r, q, psn):
        self.st["acks"] += 1
        return self.response(r, q, ACK_OP, psn, self.aeth(SYN_ACK, q.msn))

    def nak(self, r, q, syndrome, psn):
        k = f"0x{syndrome:02x}"
        self.st["naks"][k] = self.st["naks"].get(k, 0) + 1
        return self.response(r, q, ACK_OP, psn, self.aeth(syndrome, q.msn))

    def read_responses(self, r, q, psn, pa, length):
        mtu = q.conf.mtu
        n = max(1, -(-length // mtu))
        out = []
        for k in range(n):
            chunk = self.mem.read(pa + k * mtu, min(mtu, length - k * mtu)) if length else b""
            if n == 1:
                op = RR_ONLY
            else:
                op = RR_FIRST if k == 0 else RR_LAST if k == n - 1 else RR_MIDDLE
            ext = self.aeth(SYN_ACK, q.msn) if op != RR_MIDDLE else b""
            out.append(self.response(r, q, op, (psn + k) % PSN_MOD, ext, chunk))
        self.st["read_responses"] += n
        return out

    # ---------------------------------------------------------------- checks
    def access_check(self, rkey, va, length, right):
        """None, or the reason for a remote access error.  IBA C9-88: a zero-length READ or WRITE need not carry
        a valid R_Key or VA, so it is not checked (atomics always move 8 bytes)."""
        why = self.mr_error(rkey, va, length, right)
        return None if length == 0 else why

    def mr_error(self, rkey, va, length, right):
        mr = self.cfg.mrs.get(rkey)
        if mr is None:
            return f"rkey 0x{rkey:08x} unknown"
        if right not in mr.access:
            return f"rkey 0x{rkey:08x} has access '{mr.access}', needs '{right}'"
        if va < mr.va or va + length > mr.va + mr.length:
            return (f"[0x{va:x}, 0x{va:x}+{length}) outside MR 0x{rkey:x} "
                    f"[0x{mr.va:x}, 0x{mr.va:x}+{mr.length})")
        return None

    def target(self, rkey, va, length, right):
        """The physical address of an access that passed access_check (0 for a zero-length one whose R_Key or VA
        does not fit an MR: C9-88)."""
        if self.mr_error(rkey, va, length, right):
            return 0
        mr = self.cfg.mrs[rkey]
        return mr.pa + (va - mr.va)

    def get64(self, pa):
        return int.from_bytes(self.mem.read(pa, 8), self.endian)

    # ---------------------------------------------------------------- one frame
    def process(self, f, idx=None):
        p = self.parse(f)
        if isinstance(p, tuple):
            return Verdict("drop:" + p[0], reason=p[0], detail=p[1])
        r = p
        v = Verdict("", qpn=r.dqpn, psn=r.psn, opcode=r.opcode)
        if r.dst_mac != self.cfg.mac:
            v.kind, v.reason, v.detail = "drop:not_for_us", "not_for_us", "destination MAC"
            return v
        mine = self.cfg.ip6 if r.ipv6 else self.cfg.ip4
        if mine is None or r.dst_ip != mine:
            v.kind, v.reason = "drop:not_for_us", "not_for_us"
            v.detail = f"destination IPv{6 if r.ipv6 else 4} address"
            return v
        if icrc_of(r.datagram[:-4], r.ipv6) != r.datagram[-4:]:
            v.kind, v.reason = "drop:bad_icrc", "bad_icrc"
            v.detail = f"ICRC {r.datagram[-4:].hex()} should be {icrc_of(r.datagram[:-4], r.ipv6).hex()}"
            return v
        if r.opcode == OP_CNP:
            v.kind, v.reason, v.detail = "drop:cnp", "cnp", "congestion notification (BTH opcode 0x81)"
            return v
        q = self.qps.get(r.dqpn)
        if q is None:
            v.kind, v.reason, v.detail = "drop:unknown_qp", "unknown_qp", f"QP 0x{r.dqpn:06x}"
            return v
        if r.opcode in RESPONSE_OPS:
            v.kind, v.reason, v.detail = "drop:not_request", "not_request", opname(r.opcode)
            return v

        d = (r.psn - q.epsn) % PSN_MOD
        if d == 0:
            q.nak_sent = False
            self.new_request(r, q, v, idx)
        elif d < HALF:
            if q.nak_sent:
                v.kind, v.reason = "drop:psn_ahead_silent", "psn_ahead_silent"
                v.detail = f"ePSN 0x{q.epsn:06x}"
            else:
                q.nak_sent = True
                v.kind, v.detail = "nak-seq", f"ePSN 0x{q.epsn:06x}"
                v.responses.append(self.nak(r, q, SYN_PSN_SEQ, q.epsn))
        else:
            self.duplicate(r, q, v, idx)
        return v

    def duplicate(self, r, q, v, idx):
        op = r.opcode
        v.kind = "dup"
        if op in SEND_OPS:
            v.detail = "duplicate SEND: ACK, no effect"
            v.responses.append(self.ack(r, q, r.psn))
        elif op in WRITE_OPS:
            v.detail = "duplicate WRITE: ACK, no memory access"
            v.responses.append(self.ack(r, q, r.psn))
        elif op == READ_REQ:
            va, rkey, dlen = struct.unpack(">QII", r.ext[:16])
            if dlen > MAX_READ_LEN:
                v.kind, v.detail = "dup-nak-inv", f"READ length {dlen} > 2^31"
                v.responses.append(self.nak(r, q, SYN_INVALID, r.psn))
                return
            why = self.access_check(rkey, va, dlen, "r")
            if why:
                v.kind, v.detail = "dup-nak-acc", why
                v.responses.append(self.nak(r, q, SYN_ACCESS, r.psn))
                return
            self.st["read_replays"] += 1
            v.detail = "READ executed again"
            v.responses += self.read_responses(r, q, r.psn, self.target(rkey, va, dlen, "r"), dlen)
        else:  # CAS / FAA
            orig = self.aq_lookup(q, r.psn)
            if orig is None:
                v.kind, v.detail = "dup-nak-inv", f"PSN 0x{r.psn:06x} not in the AQ"
                v.responses.append(self.nak(r, q, SYN_INVALID, r.psn))
            else:
                self.st["atomic_replays"] += 1
                self.st["atomic_acks"] += 1
                v.detail = f"replayed from the AQ, orig 0x{orig:016x}"
                v.responses.append(self.response(r, q, ATOMIC_ACK_OP, r.psn, self.aeth(SYN_ACK, q.msn),
                                                 orig.to_bytes(8, "big")))

    def aq_lookup(self, q, psn):
        """The original value stored for PSN psn, or None when it is no longer in the AQ."""
        age = lambda x: (q.epsn - x) % PSN_MOD   # noqa: E731  how far behind the ePSN
        want = (0x80000000 | psn).to_bytes(4, "big")
        gbytes = AQ_GROUP * AQE_BYTES
        if self.aq_linear:
            order = sorted((g for g, s in enumerate(q.aqc) if s is not None),
                           key=lambda g: -age(q.aqc[g]))
        else:
            # the newest valid group starting at or before p; if p is older than every group
            # start, the group the write pointer is in once the AQ has wrapped (its tail holds the oldest
            # results still kept); before that, the tail is an earlier QP's at the same AQ address: none
            cands = [g for g, s in enumerate(q.aqc) if s is not None and age(s) >= age(psn)]
            if cands:
                order = [min(cands, key=lambda g: age(q.aqc[g]))]
            else:
                order = [q.aq_w // AQ_GROUP] if q.aq_lapped else []
        for g in order:
            data = self.mem.read(q.conf.aq + g * gbytes, gbytes)
            for e in range(AQ_GROUP):
                ent = data[e * AQE_BYTES:(e + 1) * AQE_BYTES]
                if ent[0:4] == want:
                    return int.from_bytes(ent[8:16], "big")
        return None

    def validate(self, r, q):
        """(syndrome, detail) of the first failing check of a new request, or None."""
        op, mtu, plen = r.opcode, q.conf.mtu, len(r.payload)
        # 1. opcode sequence (an open SEND is treated like an open WRITE)
        is_open = "WRITE" if q.write is not None else "SEND" if q.send is not None else None
        if op in (W_MIDDLE, W_LAST, W_LAST_IMM):
            if q.write is None:
                return SYN_INVALID, (f"{opname(op)} while a multi-packet SEND is open" if is_open
                                     else f"{opname(op)} without a WRITE FIRST")
        elif op in (S_MIDDLE, S_LAST, S_LAST_IMM):
            if q.send is None:
                return SYN_INVALID, (f"{opname(op)} while a multi-packet WRITE is open" if is_open
                                     else f"{opname(op)} without a SEND FIRST")
        elif is_open:
            return SYN_INVALID, f"{opname(op)} while a multi-packet {is_open} is open"
        # 2. lengths
        if plen > mtu:
            return SYN_INVALID, f"payload {plen} > MTU {mtu}"
        if op in (S_FIRST, S_MIDDLE) and plen != mtu:
            return SYN_INVALID, f"{opname(op)} payload {plen} != MTU {mtu}"
        if op in (W_FIRST, W_MIDDLE) and plen != mtu:
            # the contract names MIDDLE; IBA (and a real responder) wants FIRST full too
            return SYN_INVALID, f"{opname(op)} payload {plen} != MTU {mtu}"
        if op in (W_FIRST, W_ONLY, W_ONLY_IMM):
            dlen = struct.unpack(">I", r.ext[12:16])[0]
            if op == W_FIRST and plen > dlen:
                return SYN_INVALID, f"WRITE FIRST payload {plen} > DMA length {dlen}"
            if op != W_FIRST and plen != dlen:
                return SYN_INVALID, f"WRITE ONLY payload {plen} != DMA length {dlen}"
        if op == W_MIDDLE and q.write.done + plen > q.write.dlen:
            return SYN_INVALID, f"WRITE total {q.write.done + plen} > DMA length {q.write.dlen}"
        if op in (W_LAST, W_LAST_IMM) and q.write.done + plen != q.write.dlen:
            return SYN_INVALID, f"WRITE total {q.write.done + plen} != DMA length {q.write.dlen}"
        if op in (READ_REQ, CAS, FAA) and plen:
            return SYN_INVALID, f"{opname(op)} carries {plen} payload bytes"
        if op == READ_REQ:
            dlen = struct.unpack(">I", r.ext[12:16])[0]
            if dlen > MAX_READ_LEN:
                return SYN_INVALID, f"READ length {dlen} > 2^31"
        # 3. memory region
        if op in (W_FIRST, W_ONLY, W_ONLY_IMM, READ_REQ):
            va, rkey, dlen = struct.unpack(">QII", r.ext[:16])
            why = self.access_check(rkey, va, dlen, "r" if op == READ_REQ else "w")
            if why:
                return SYN_ACCESS, why
        if op in (CAS, FAA):
            va, rkey = struct.unpack(">QI", r.ext[:12])
            why = self.access_check(rkey, va, 8, "a")
            if why:
                return SYN_ACCESS, why
            # 4. alignment
            if va % 8:
                return SYN_INVALID, f"ATOMIC va 0x{va:x} not 8-byte aligned"
        # 5. responder resources: more than max_rd_atomic READ/ATOMIC requests not yet answered
        # cannot happen, requests are handled one at a time (docs/rdma.md "Interpretations")
        return None

    def new_request(self, r, q, v, idx):
        op = r.opcode
        bad = self.validate(r, q)
        if bad is None and op in SEND_OPS:
            bad = self.send_check(r, q)
        if bad is None and op in (W_LAST_IMM, W_ONLY_IMM):
            bad = self.rq_check(q, "WRITE with immediate")
        if bad:
            q.nak_sent = True
            v.kind = ("nak-inv" if bad[0] == SYN_INVALID else "nak-acc" if bad[0] == SYN_ACCESS
                      else "nak-rnr")
            v.detail = bad[1]
            v.responses.append(self.nak(r, q, bad[0], r.psn))
            return
        v.kind = "exec"
        if op in SEND_OPS:
            self.exec_send(r, q, v, idx)
        elif op in WRITE_OPS:
            self.st["writes_executed"] += 1
            if op in (W_FIRST, W_ONLY, W_ONLY_IMM):
                va, rkey, dlen = struct.unpack(">QII", r.ext[:16])
                ctx = WriteCtx(self.cfg.mrs.get(rkey), self.target(rkey, va, dlen, "w"), dlen, 0)
            else:
                ctx = q.write
            if r.payload:
                self.mem.write(ctx.pa, r.payload, idx)
            ctx.pa += len(r.payload)
            ctx.done += len(r.payload)
            last = op in (W_LAST, W_LAST_IMM, W_ONLY, W_ONLY_IMM)
            q.write = None if last else ctx
            v.detail = f"{len(r.payload)} bytes at pa 0x{ctx.pa - len(r.payload):x}"
            if op in (W_LAST_IMM, W_ONLY_IMM):
                # the payload is written, then the WQE is consumed (read for its wr_id), CQE
                wqe = q.rq_head
                _, _, wr_id = parse_wqe(self.mem.read(q.conf.wqe_pa(wqe), WQE_BYTES))
                c = self.complete(r, q, wr_id, ctx.dlen, CQE_WRITE_IMM, idx)
                v.detail += f"; WQE {wqe} wr_id 0x{wr_id:08x} -> CQE {c.index} (byte count {ctx.dlen})"
            if last:
                q.msn = (q.msn + 1) % PSN_MOD
            q.epsn = (q.epsn + 1) % PSN_MOD
            if last or r.ackreq:
                v.responses.append(self.ack(r, q, r.psn))
        elif op == READ_REQ:
            self.st["reads_executed"] += 1
            va, rkey, dlen = struct.unpack(">QII", r.ext[:16])
            q.msn = (q.msn + 1) % PSN_MOD
            v.responses += self.read_responses(r, q, r.psn, self.target(rkey, va, dlen, "r"), dlen)
            q.epsn = (q.epsn + len(v.responses)) % PSN_MOD
            v.detail = f"{dlen} bytes in {len(v.responses)} responses"
        else:
            va, rkey, swap_add, compare = struct.unpack(">QIQQ", r.ext[:28])
            mr = self.cfg.mrs[rkey]
            pa = mr.pa + (va - mr.va)
            old = self.get64(pa)
            if op == FAA:
                self.mem.write(pa, ((old + swap_add) % (1 << 64)).to_bytes(8, self.endian), idx)
            elif old == compare:
                self.mem.write(pa, swap_add.to_bytes(8, self.endian), idx)
            i = q.aq_w
            if i % AQ_GROUP == 0:
                q.aqc[i // AQ_GROUP] = r.psn
            self.mem.write(q.conf.aq + i * AQE_BYTES,
                           (0x80000000 | r.psn).to_bytes(4, "big") + bytes(4) + old.to_bytes(8, "big"), idx)
            q.aq_lapped = q.aq_lapped or i + 1 == q.conf.depth
            q.aq_w = (i + 1) % q.conf.depth
            self.st["atomics_executed"] += 1
            self.st["atomic_acks"] += 1
            q.msn = (q.msn + 1) % PSN_MOD
            q.epsn = (q.epsn + 1) % PSN_MOD
            v.detail = f"pa 0x{pa:x} orig 0x{old:016x} -> AQE {i}"
            v.responses.append(self.response(r, q, ATOMIC_ACK_OP, r.psn, self.aeth(SYN_ACK, q.msn),
                                             old.to_bytes(8, "big")))

    # ---------------------------------------------------------------- receive / completion queues
    def rq_check(self, q, what):
        """docs/rdma.md: the QP needs an RQ (else invalid request) and a posted WQE (else RNR NAK)."""
        c = q.conf
        if not c.has_rq:
            return SYN_INVALID, f"{what} on a QP without a receive queue"
        if q.rq_head == c.rq_posted:
            return SYN_RNR | c.rnr_timer, (f"{what}: no posted receive WQE left ({c.rq_posted} posted, "
                                           f"all consumed): RNR NAK")
        return None

    def send_check(self, r, q):
        """The SEND checks after validation steps 1 and 2; a first/only packet reads its WQE."""
        op, plen = r.opcode, len(r.payload)
        if op in (S_FIRST, S_ONLY, S_ONLY_IMM):
            bad = self.rq_check(q, opname(op))
            if bad:
                return bad
            buf, blen, wr_id = parse_wqe(self.mem.read(q.conf.wqe_pa(q.rq_head), WQE_BYTES))
            if plen > blen:
                return SYN_INVALID, (f"{opname(op)} payload {plen} > the buffer of WQE {q.rq_head} "
                                     f"({blen} bytes): WQE not consumed")
            self._wqe = SendCtx(q.rq_head, buf, blen, wr_id, 0)
            return None
        s = q.send
        if s.done + plen > s.buf_len:
            return SYN_INVALID, (f"{opname(op)}: {s.done} + {plen} bytes > the buffer of WQE {s.wqe} "
                                 f"({s.buf_len} bytes); the message stays open")
        return None

    def exec_send(self, r, q, v, idx):
        op = r.opcode
        self.st["sends_executed"] += 1
        s = self._wqe if op in (S_FIRST, S_ONLY, S_ONLY_IMM) else q.send
        if r.payload:
            self.mem.write(s.buf + s.done, r.payload, idx)
        v.detail = f"{len(r.payload)} bytes into WQE {s.wqe} at 0x{s.buf + s.done:x}"
        s.done += len(r.payload)
        last = op in (S_LAST, S_LAST_IMM, S_ONLY, S_ONLY_IMM)
        q.send = None if last else s
        if last:
            c = self.complete(r, q, s.wr_id, s.done, CQE_SEND, idx)
            v.detail += f"; wr_id 0x{s.wr_id:08x} -> CQE {c.index} (byte count {s.done})"
            q.msn = (q.msn + 1) % PSN_MOD
        q.epsn = (q.epsn + 1) % PSN_MOD
        if last or r.ackreq:
            v.responses.append(self.ack(r, q, r.psn))

    def complete(self, r, q, wr_id, byte_count, opcode, idx):
        """Consume the WQE at the RQ head and write the next CQE."""
        imm = r.ext[-4:] if r.opcode in (S_LAST_IMM, S_ONLY_IMM, W_LAST_IMM, W_ONLY_IMM) else None
        c = CQE(q.conf.qpn, q.cq_index, q.conf.cqe_pa(q.cq_index), wr_id, byte_count, imm, opcode, r.psn, idx)
        self.mem.write(c.pa, c.to_bytes(), idx)
        self.cqes.append(c)
        q.rq_head += 1
        q.cq_index += 1
        self.st["wqes_consumed"] += 1
        self.st["cqes_written"] += 1
        return c

    # ---------------------------------------------------------------- results
    def memory_json(self):
        return {str(mr.rkey): self.mem.read(mr.pa, mr.length).hex() for mr in self.cfg.mrs.values()}
