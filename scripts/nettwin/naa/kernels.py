#!/usr/bin/python3
"""The endpoint's RPC kernels and immediates (docs/naa.md "MRSP and RPC") - library, no command line.

Written from the docs, independent of the C++ model and the RTL (zlib for the CRC):
  run(fn, regions) -> (immediate, result index, result bytes)
    regions: the granted FPGA regions' contents, in order (bytes each)
    1 add:  region 2 = region 0 + region 1, little-endian 32-bit words mod 2^32 (sizes equal, multiple of 4)
    2 crc:  zlib.crc32(region 0), little-endian, into the first 4 bytes of region 1 (size >= 4)
    3 copy: region 0 into region 1 (size1 >= size0)
  The result index's region is written back to the client's region of the same index; an error writes
  nothing (a zero-length WRITE_WITH_IMM to host region 0 carries the immediate).
  function(imm, encoding) -> fn, return_imm(code, encoding) -> immediate: the RPC immediates (docs/naa.md
  "RPC immediates"), encoding "plain" (the seed's: the 32-bit immediate is the function code, the return
  immediate the code) or "naaice" (naa-communication-library f7b72fc lib/naaice.c: the client sends
  htonl(fncode | user bytes << 8 | 0x80) and reads ntohl(imm) >> 8).
"""
import struct
import zlib

OK, TIMEOUT, UNKNOWN_FN, REGIONS, SIZE = 0x00, 0x02, 0x10, 0x11, 0x12
ADD, CRC, COPY = 1, 2, 3
ENCODINGS = ("plain", "naaice")
START_RPC_MASK, IMMEDIATE_OFFSET = 0x80, 8     # the library's names (lib/naaice.c, lib/naaice.h)


def function(imm, encoding):
    """The function code an RPC immediate (ImmDt as a big-endian number) asks for; 0 (unknown) for a library
    immediate without START_RPC_MASK."""
    if encoding == "plain":
        return imm
    return imm & (START_RPC_MASK - 1) if imm & START_RPC_MASK else 0


def return_imm(code, encoding):
    """The immediate that tells the client return code `code`."""
    return code << IMMEDIATE_OFFSET if encoding == "naaice" else code


def library_reads(imm):
    """What naa-communication-library's client takes for the return code (naaice.c: ntohl(imm) >> 8)."""
    return imm >> IMMEDIATE_OFFSET


def run(fn, regions):
    sizes = [len(r) for r in regions]
    if fn not in (ADD, CRC, COPY):
        return UNKNOWN_FN, None, b""
    if len(regions) < (3 if fn == ADD else 2):
        return REGIONS, None, b""
    if fn == ADD:
        if sizes[0] != sizes[1] or sizes[0] != sizes[2] or sizes[0] % 4:
            return SIZE, None, b""
        n = sizes[0] // 4
        a = struct.unpack(f"<{n}I", regions[0])
        b = struct.unpack(f"<{n}I", regions[1])
        return OK, 2, struct.pack(f"<{n}I", *((x + y) & 0xFFFFFFFF for x, y in zip(a, b)))
    if fn == CRC:
        if sizes[1] < 4:
            return SIZE, None, b""
        return OK, 1, struct.pack("<I", zlib.crc32(regions[0]))
    if sizes[1] < sizes[0]:
        return SIZE, None, b""
    return OK, 1, bytes(regions[0])
