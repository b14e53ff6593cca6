-- Wireshark/tshark dissector for the NAAICE memory-region setup protocol (MRSP, docs/naa.md "MRSP and RPC"),
-- written from the seed's diagrams: a heuristic on the InfiniBand payload (RoCEv2 SEND ONLY), big-endian.
--   tshark -X lua_script:scripts/dissectors/mrsp.lua -r capture.pcap -Y mrsp -V
--   0x01 Advertisement and Request: type, count N, pad 16; N x (MR flags 8, requested FPGA address 56,
--        published address 64, published rkey 32, published size 32)
--   0x02 Advertisement: type, count N, pad 16; N x (address 64, rkey 32, size 32)
--   0x00 Error: type, error code, pad 16
local mrsp = Proto("mrsp", "NAAICE Memory Region Setup Protocol")

local types = { [0] = "Error", [1] = "Advertisement and Request", [2] = "Advertisement" }
local codes = { [1] = "Not enough memory", [2] = "Invalid address", [3] = "Too many regions",
                [4] = "Malformed request" }
local f = mrsp.fields
f.type = ProtoField.uint8("mrsp.type", "Type", base.HEX, types)
f.count = ProtoField.uint8("mrsp.count", "Count", base.DEC)
f.code = ProtoField.uint8("mrsp.error", "Error code", base.HEX, codes)
f.pad = ProtoField.uint16("mrsp.padding", "Padding", base.HEX)
f.flags = ProtoField.uint8("mrsp.mr_flags", "MR flags", base.HEX)
f.fpga = ProtoField.uint64("mrsp.fpga_addr", "Requested FPGA address", base.HEX)
f.addr = ProtoField.uint64("mrsp.addr", "Address", base.HEX)
f.rkey = ProtoField.uint32("mrsp.rkey", "RKey", base.HEX)
f.size = ProtoField.uint32("mrsp.size", "Size", base.DEC)
f.region = ProtoField.bytes("mrsp.region", "Region")

local ib_opcode = Field.new("infiniband.bth.opcode")

-- Entry sizes by type: whether `len` bytes can be this message (the count must fit).
local entry = { [1] = 24, [2] = 16 }

local function looks_like_mrsp(tvb)
  local len = tvb:len()
  if len < 4 then return false end
  local t = tvb(0, 1):uint()
  if t == 0 then return len <= 8 and tvb(1, 1):uint() >= 1 and tvb(1, 1):uint() <= 4 and tvb(2, 2):uint() == 0 end
  local e = entry[t]
  if e == nil then return false end
  local n = tvb(1, 1):uint()
  -- The message, then at most 3 bytes of BTH pad.
  return n >= 1 and len >= 4 + e * n and len <= 4 + e * n + 3 and tvb(2, 2):uint() == 0
end

function mrsp.dissector(tvb, pinfo, tree)
  local t = tvb(0, 1):uint()
  local sub = tree:add(mrsp, tvb(), "NAAICE MRSP " .. (types[t] or "?"))
  sub:add(f.type, tvb(0, 1))
  if t == 0 then
    sub:add(f.code, tvb(1, 1))
    sub:add(f.pad, tvb(2, 2))
    pinfo.cols.info:set("MRSP Error " .. (codes[tvb(1, 1):uint()] or "?"))
    return 4
  end
  local n = tvb(1, 1):uint()
  sub:add(f.count, tvb(1, 1))
  sub:add(f.pad, tvb(2, 2))
  local e = entry[t]
  for i = 0, n - 1 do
    local off = 4 + e * i
    local r = sub:add(f.region, tvb(off, e)):set_text("Region " .. i)
    if t == 1 then
      r:add(f.flags, tvb(off, 1))
      r:add(f.fpga, tvb(off + 1, 7), UInt64.fromhex(tostring(tvb(off + 1, 7):bytes())))
      r:add(f.addr, tvb(off + 8, 8))
      r:add(f.rkey, tvb(off + 16, 4))
      r:add(f.size, tvb(off + 20, 4))
    else
      r:add(f.addr, tvb(off, 8))
      r:add(f.rkey, tvb(off + 8, 4))
      r:add(f.size, tvb(off + 12, 4))
    end
  end
  pinfo.cols.info:set("MRSP " .. types[t] .. ", " .. n .. " region(s)")
  return 4 + e * n
end

local function heuristic(tvb, pinfo, tree)
  local op = ib_opcode()
  -- RC SEND ONLY (0x04) carries every MRSP message (one SEND per message, the seed).
  if op == nil or op.value ~= 0x04 then return false end
  if not looks_like_mrsp(tvb) then return false end
  mrsp.dissector(tvb, pinfo, tree)
  return true
end

mrsp:register_heuristic("infiniband.payload", heuristic)
