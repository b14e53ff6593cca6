-- e2sar_re.lua: tshark/Wireshark dissector for E2SAR's 20-byte reassembly header (REHdr), from
-- JeffersonLab/E2SAR include/e2sarHeaders.hpp (commit 8992fa3): preamble {version << 4, 0} (version 1 in
-- the upper nibble of byte 0, 12 reserved bits), dataId 16, bufferOffset 32, bufferLength 32 (the event's
-- length), eventNum 64, all big endian.
--
-- E2SAR's LB headers (LBHdrV2 / LBHdrV3) carry nextProto = rehdrVersion = 1, the value the seed's EVIO6
-- segment header also uses after an LB header; udplb.lua tells them apart by the first bytes (0x10 0x00 and
-- at least 20 bytes: this header) and calls this dissector by name ("e2sar_re"); it also calls it for a
-- payload to UDP port 0x4C42 (E2SAR's default data port 19522) that starts with 0x10 0x00 (an E2SAR
-- receiver's data once the LB removed its header). Load it with udplb.lua; order does not matter.
-- A payload shorter than 20 bytes is left to other dissectors (returns 0); a version other than 1 or
-- nonzero reserved bits get an expert warning (E2SAR's REHdr::check_version rejects them).
--
-- Use:  tshark -X lua_script:udplb.lua -X lua_script:evio6seg.lua -X lua_script:e2sar_re.lua -r file.pcap
local p_re = Proto("e2sar_re", "E2SAR Reassembly Header")
local f_version = ProtoField.uint8("e2sar_re.version", "Version", base.DEC, nil, 0xF0)
local f_rsvd = ProtoField.uint16("e2sar_re.reserved", "Reserved", base.HEX, nil, 0x0FFF)
local f_data_id = ProtoField.uint16("e2sar_re.data_id", "Data ID", base.HEX)
local f_offset = ProtoField.uint32("e2sar_re.buffer_offset", "Buffer Offset", base.DEC)
local f_length = ProtoField.uint32("e2sar_re.buffer_length", "Buffer (Event) Length", base.DEC)
local f_event = ProtoField.uint64("e2sar_re.event_num", "Event Number", base.HEX)
p_re.fields = { f_version, f_rsvd, f_data_id, f_offset, f_length, f_event }
local e_version = ProtoExpert.new("e2sar_re.bad_preamble", "Not version 1 with zero reserved bits",
    expert.group.PROTOCOL, expert.severity.WARN)
p_re.experts = { e_version }
local RE_LEN = 20
local data_dis = Dissector.get("data")

function p_re.dissector(buf, pkt, tree)
    if buf:len() < RE_LEN then
        return 0
    end
    local t = tree:add(p_re, buf(0, RE_LEN))
    t:add(f_version, buf(0, 1))
    t:add(f_rsvd, buf(0, 2))
    t:add(f_data_id, buf(2, 2))
    t:add(f_offset, buf(4, 4))
    t:add(f_length, buf(8, 4))
    t:add(f_event, buf(12, 8))
    if buf(0, 1):uint() ~= 0x10 or buf(1, 1):uint() ~= 0 then
        t:add_proto_expert_info(e_version)
    end
    if buf:len() > RE_LEN then
        data_dis:call(buf(RE_LEN):tvb(), pkt, tree)
    end
    pkt.cols.protocol:set("E2SAR-RE")
    pkt.cols.packet_len:set(buf:len() - RE_LEN)
    pkt.cols.info:set(string.format("Data ID: 0x%X Event: %s Offset: %d Length: %d", buf(2, 2):uint(),
        tostring(buf(12, 8):uint64()), buf(4, 4):uint(), buf(8, 4):uint()))
    return buf:len()
end
