-- opa16b_vnic.lua: tshark/Wireshark dissector for OPA 16B packets carrying Ethernet (OPA VNIC) in pcaps with
-- link type DLT_USER0 (147), as `nettwin vnic --direction encap` writes them (docs/vnic.md "Packet format").
-- Wireshark has no 16B dissector. Quadwords are little-endian on the wire:
--   QW0: SLID[19:0] 0-19, length (QW) 20-30, BECN 31, DLID[19:0] 32-51, SC 52-56, RC 57-59, FECN 60,
--        L2 61-62 (=0b10), LT 63 (=1)
--   QW1: L4 type 0-7 (=0x78), SLID[23:20] 8-11, DLID[23:20] 12-15, PKEY 16-31, entropy 32-47, reserved 48-63
--   QW2: reserved 0-15, L4 header (veswid) 16-31, then the Ethernet frame, pad, and in the last QW the ICRC
--        (bits 24-55, little-endian), Tail = pad byte count (56-61), LT (62-63, =0b01; Linux hfi1 writes 0b00).
-- The inner frame goes to Wireshark's Ethernet dissector (eth_withoutfcs). The ICRC is recomputed (CRC-32
-- over every byte before it, BECN/SC/FECN read as ones: docs/vnic.md "ICRC") and a mismatch, a wrong length
-- or pad, or a short packet gets an expert error instead of a Lua error.
--   tshark -X lua_script:scripts/dissectors/opa16b_vnic.lua -r opa.pcap -V
-- Fields: opa16b.slid .length .becn .dlid .sc .rc .fecn .l2 .lt .l4 .pkey .entropy .veswid .pad .tail_lt
-- .icrc .icrc_ok. Checked field by field against the Scapy layer by scripts/nettwin/vnic/test_dissector.py.

local HDR_LEN = 20
local TRAILER_LEN = 5

local p = Proto("opa16b", "Omni-Path 16B (VNIC)")
local f = {
  slid = ProtoField.uint32("opa16b.slid", "SLID", base.HEX),
  length = ProtoField.uint16("opa16b.length", "Length (quadwords)", base.DEC),
  becn = ProtoField.uint8("opa16b.becn", "BECN", base.DEC),
  dlid = ProtoField.uint32("opa16b.dlid", "DLID", base.HEX),
  sc = ProtoField.uint8("opa16b.sc", "SC", base.DEC),
  rc = ProtoField.uint8("opa16b.rc", "RC", base.DEC),
  fecn = ProtoField.uint8("opa16b.fecn", "FECN", base.DEC),
  l2 = ProtoField.uint8("opa16b.l2", "L2 type", base.DEC, { [2] = "16B" }),
  lt = ProtoField.uint8("opa16b.lt", "LT (head)", base.DEC),
  l4 = ProtoField.uint8("opa16b.l4", "L4 type", base.HEX, { [0x78] = "Ethernet" }),
  pkey = ProtoField.uint16("opa16b.pkey", "PKEY", base.HEX),
  entropy = ProtoField.uint16("opa16b.entropy", "Entropy", base.DEC),
  veswid = ProtoField.uint16("opa16b.veswid", "L4 header: veswid", base.DEC),
  pad = ProtoField.uint8("opa16b.pad", "Tail: pad bytes", base.DEC),
  tail_lt = ProtoField.uint8("opa16b.tail_lt", "LT (tail)", base.DEC),
  icrc = ProtoField.uint32("opa16b.icrc", "ICRC", base.HEX),
  icrc_ok = ProtoField.bool("opa16b.icrc_ok", "ICRC correct"),
}
p.fields = { f.slid, f.length, f.becn, f.dlid, f.sc, f.rc, f.fecn, f.l2, f.lt, f.l4, f.pkey, f.entropy, f.veswid,
  f.pad, f.tail_lt, f.icrc, f.icrc_ok }
local e_bad = ProtoExpert.new("opa16b.bad", "16B packet check failed", expert.group.MALFORMED, expert.severity.ERROR)
p.experts = { e_bad }

local band, bor, bxor, rshift, lshift = bit32.band, bit32.bor, bit32.bxor, bit32.rshift, bit32.lshift

local crc_table = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    if band(c, 1) == 1 then c = bxor(rshift(c, 1), 0xEDB88320) else c = rshift(c, 1) end
  end
  crc_table[i] = c
end

local function icrc(tvb, n)
  local c = 0xFFFFFFFF
  local bytes = tvb:bytes(0, n)
  for i = 0, n - 1 do
    local b = bytes:get_index(i)
    if i == 3 then b = bor(b, 0x80) elseif i == 6 then b = bor(b, 0xF0) elseif i == 7 then b = bor(b, 0x11) end
    c = bxor(rshift(c, 8), crc_table[band(bxor(c, b), 0xFF)])
  end
  return bxor(c, 0xFFFFFFFF)
end

local eth = Dissector.get("eth_withoutfcs")

function p.dissector(tvb, pinfo, tree)
  local n = tvb:len()
  pinfo.cols.protocol = "OPA16B"
  local t = tree:add(p, tvb(), "Omni-Path 16B (VNIC)")
  if n < HDR_LEN + TRAILER_LEN then
    t:add_proto_expert_info(e_bad, "packet of " .. n .. " bytes is shorter than header + ICRC + tail")
    return n
  end
  local w0, w1, w2, w3, w4 = tvb(0, 4):le_uint(), tvb(4, 4):le_uint(), tvb(8, 4):le_uint(), tvb(12, 4):le_uint(),
    tvb(16, 4):le_uint()
  local slid = bor(band(w0, 0xFFFFF), lshift(band(rshift(w2, 8), 0xF), 20))
  local dlid = bor(band(w1, 0xFFFFF), lshift(band(rshift(w2, 12), 0xF), 20))
  local length = band(rshift(w0, 20), 0x7FF)
  local l2, l4 = band(rshift(w1, 29), 3), band(w2, 0xFF)
  t:add(f.slid, tvb(0, 12), slid)
  t:add(f.length, tvb(0, 4), length)
  t:add(f.becn, tvb(0, 4), rshift(w0, 31))
  t:add(f.dlid, tvb(4, 8), dlid)
  t:add(f.sc, tvb(4, 4), band(rshift(w1, 20), 0x1F))
  t:add(f.rc, tvb(4, 4), band(rshift(w1, 25), 7))
  t:add(f.fecn, tvb(4, 4), band(rshift(w1, 28), 1))
  t:add(f.l2, tvb(4, 4), l2)
  t:add(f.lt, tvb(4, 4), rshift(w1, 31))
  t:add(f.l4, tvb(8, 1), l4)
  t:add(f.pkey, tvb(10, 2), rshift(w2, 16))
  t:add(f.entropy, tvb(12, 2), band(w3, 0xFFFF))
  t:add(f.veswid, tvb(18, 2), rshift(w4, 16))
  local tail = tvb(n - 1, 1):uint()
  local pad = band(tail, 0x3F)
  local rx = tvb(n - 5, 4):le_uint()
  t:add(f.pad, tvb(n - 1, 1), pad)
  t:add(f.tail_lt, tvb(n - 1, 1), rshift(tail, 6))
  t:add(f.icrc, tvb(n - 5, 4), rx)
  local ok = icrc(tvb, n - 5) == rx
  t:add(f.icrc_ok, tvb(n - 5, 4), ok)
  if not ok then t:add_proto_expert_info(e_bad, "bad ICRC") end
  if length * 8 ~= n then t:add_proto_expert_info(e_bad, "length field " .. length .. " QW, packet " .. n .. " bytes") end
  if l2 ~= 2 or l4 ~= 0x78 then t:add_proto_expert_info(e_bad, "not 16B Ethernet (L2 " .. l2 .. ", L4 " .. l4 .. ")") end
  -- tail LT 0b01 (the spec) or 0b00 (Linux hfi1 writes the pad count alone)
  if rshift(tail, 6) > 1 or pad > 7 then t:add_proto_expert_info(e_bad, "bad tail byte") end
  pinfo.cols.info = string.format("16B VNIC veswid %d SLID 0x%06x -> DLID 0x%06x PKEY 0x%04x SC %d",
    rshift(w4, 16), slid, dlid, rshift(w2, 16), band(rshift(w1, 20), 0x1F))
  local inner = n - HDR_LEN - TRAILER_LEN - band(pad, 7)
  -- Dissector.call raises a Lua error on a frame the Ethernet dissector rejects: report it as an expert error.
  if l4 == 0x78 and inner > 0 then
    if inner < 14 then
      t:add_proto_expert_info(e_bad, "inner Ethernet frame of " .. inner .. " bytes, shorter than its header")
    elseif not pcall(function() eth:call(tvb(HDR_LEN, inner):tvb(), pinfo, tree) end) then
      t:add_proto_expert_info(e_bad, "inner Ethernet frame malformed")
    end
  end
  return n
end

DissectorTable.get("wtap_encap"):add(wtap.USER0, p)
