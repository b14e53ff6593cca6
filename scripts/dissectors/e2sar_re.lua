-- e2sar_re.lua: tshark/Wireshark dissector for E2SAR's 20-byte reassembly header (docs/re.md "E2SAR's
-- header"; JeffersonLab/E2SAR include/e2sarHeaders.hpp @ 8992fa3, struct REHdr): version:4 rsvd:4 rsvd:8
-- data_id:16 buffer_offset:32 buffer_length:32 (the event's length) event_num:64, big endian, then the
-- segment's data; optionally behind the LB header an LB kept ("LB", version 1: 12 bytes, 2 or 3: 16 bytes).
-- Called by udplb.lua on E2SAR's default data port 19522, and registered as a UDP heuristic (first byte 0x10, second 0, at least
-- 20 bytes, after an optional LB header), so frames from any source port decode with
-- `-o udp.try_heuristic_first:TRUE`. Written for this project (not E2SAR's code).
local p = Proto("e2sar_re", "E2SAR Reassembly Header")
local f_lb_version = ProtoField.uint8("e2sar_re.lb_version", "LB header in front (version)", base.DEC)
local f_version = ProtoField.uint8("e2sar_re.version", "Version", base.DEC, nil, 0xF0)
local f_rsvd = ProtoField.uint16("e2sar_re.rsvd", "Reserved", base.HEX, nil, 0x0FFF)
local f_data_id = ProtoField.uint16("e2sar_re.data_id", "Data ID", base.DEC)
local f_offset = ProtoField.uint32("e2sar_re.buffer_offset", "Buffer offset", base.DEC)
local f_length = ProtoField.uint32("e2sar_re.buffer_length", "Buffer (event) length", base.DEC)
local f_event = ProtoField.uint64("e2sar_re.event_num", "Event number", base.DEC)
p.fields = {f_lb_version, f_version, f_rsvd, f_data_id, f_offset, f_length, f_event}
local RE_LEN = 20
local data_dis = Dissector.get("data")

-- Bytes of an LB header at the start of buf (0: none; nil: "LB" of an unknown version).
local function lb_len(buf)
    if buf:len() < 3 or buf(0, 2):uint() ~= 0x4C42 then return 0 end
    local v = buf(2, 1):uint()
    if v == 1 then return 12 end
    if v == 2 or v == 3 then return 16 end
    return nil
end

local function dissect(buf, pkt, tree)
    local skip = lb_len(buf)
    if skip == nil or buf:len() < skip + RE_LEN then return 0 end
    local t = tree:add(p, buf(0, skip + RE_LEN))
    if skip > 0 then t:add(f_lb_version, buf(2, 1)) end
    local h = buf(skip, RE_LEN)
    t:add(f_version, h(0, 1))
    t:add(f_rsvd, h(0, 2))
    t:add(f_data_id, h(2, 2))
    t:add(f_offset, h(4, 4))
    t:add(f_length, h(8, 4))
    t:add(f_event, h(12, 8))
    local rest = buf:len() - skip - RE_LEN
    if rest > 0 then data_dis:call(buf(skip + RE_LEN):tvb(), pkt, tree) end
    pkt.cols.protocol:set("E2SAR-RE")
    pkt.cols.info:set(string.format("Event %s Data ID %d Offset %d/%d (%d bytes)", tostring(h(12, 8):uint64()),
        h(2, 2):uint(), h(4, 4):uint(), h(8, 4):uint(), rest))
    return buf:len()
end

function p.dissector(buf, pkt, tree)
    return dissect(buf, pkt, tree)
end

local function heuristic(buf, pkt, tree)
    local skip = lb_len(buf)
    if skip == nil or buf:len() < skip + RE_LEN then return false end
    if buf(skip, 1):uint() ~= 0x10 or buf(skip + 1, 1):uint() ~= 0 then return false end
    dissect(buf, pkt, tree)
    return true
end

-- Port 19522 (0x4C42) belongs to udplb.lua, which calls this dissector by name for a payload that starts with
-- 0x10 0x00 (E2SAR's data once the LB removed its header) and after an LB v2/v3 header whose next protocol is 1.
p:register_heuristic("udp", heuristic)
