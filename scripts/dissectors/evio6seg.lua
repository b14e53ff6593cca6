-- evio6seg.lua: tshark/Wireshark dissector for the EVIO6 segmentation (reassembly engine)
-- header: version:4 reserved:10 first:1 last:1 rocid:16 offset:32 (8 bytes), carried after
-- the LB header (udplb.proto == 1) or, once the LB removed that header, on UDP port 0x4556.
--
-- From the spec's "Tshark Plug-in for Payload Seg", with these fixes (tested on tshark 4.0):
--  FIX 1: the version field's filter name was misspelt "eviogseg.version"; it is now
--         "evio6seg.version" like the protocol's other fields (display unchanged).
--  FIX 2: the protocol tree item covered 4 bytes, leaving the offset field (bytes 4..7) outside
--         it; it now covers the whole 8-byte header.
--  FIX 3: payloads shorter than 8 bytes raised "Lua Error: Range is out of bounds" (e.g. a bare
--         LB header or a short packet to port 0x4556); they are now left to other dissectors.
--  FIX 4: rocid / offset for the info column are read from the buffer instead of Field.new
--         accessors (those return the first value in the frame, wrong for a second header).
--  FIX 5: the data dissector is only called when bytes follow the header, and the length
--         column uses buf:len() - 8 (no sub-tvb of an empty range).
--  FIX 6: loading no longer fails when udplb.lua is not loaded (first, or at all): the
--         "udplb.proto" table is looked up with pcall; port 0x4556 works on its own.
--  FIX 7: the dissector returns the number of bytes it consumed.
-- Behaviour otherwise unchanged: field names and masks, columns (protocol EVIO6SEG, length =
-- segment data bytes, info "ROC: 0x... Offset: n").
local p_evio6seg = Proto("evio6seg", "EVIO6 Segmentation")
local f_version = ProtoField.uint8("evio6seg.version", "Version", base.DEC, nil, 0xF0)   -- FIX 1
local f_flags = ProtoField.uint16("evio6seg.flags", "Flags", base.HEX, nil, 0x0FFF)
local f_rsvd = ProtoField.bool("evio6seg.flags.rsvd", "Reserved", 16, nil, 0xFFC)
local f_first = ProtoField.bool("evio6seg.flags.first", "First Segment", 16, nil, 0x002)
local f_last = ProtoField.bool("evio6seg.flags.last", "Last Segment", 16, nil, 0x001)
local f_rocid = ProtoField.uint16("evio6seg.rocid", "ROC ID", base.HEX)
local f_offset = ProtoField.uint32("evio6seg.offset", "Offset", base.HEX)
p_evio6seg.fields = {
    f_version,
    f_flags,
    f_rsvd,
    f_first,
    f_last,
    f_rocid,
    f_offset,
}
local EVIO6SEG_LEN = 8
local data_dis = Dissector.get("data")

function p_evio6seg.dissector(buf, pkt, tree)
    if buf:len() < EVIO6SEG_LEN then      -- FIX 3
        return 0
    end
    local t = tree:add(p_evio6seg, buf(0, EVIO6SEG_LEN))   -- FIX 2
    t:add(f_version, buf(0, 1))
    local tflags = t:add(f_flags, buf(0, 2))
    tflags:add(f_rsvd, buf(0, 2))
    tflags:add(f_first, buf(0, 2))
    tflags:add(f_last, buf(0, 2))
    t:add(f_rocid, buf(2, 2))
    t:add(f_offset, buf(4, 4))
    if buf:len() > EVIO6SEG_LEN then      -- FIX 5
        data_dis:call(buf(EVIO6SEG_LEN):tvb(), pkt, tree)
    end
    local rocid = buf(2, 2):uint()        -- FIX 4
    local offset = buf(4, 4):uint()
    pkt.cols.protocol:set("EVIO6SEG")
    pkt.cols.packet_len:set(buf:len() - EVIO6SEG_LEN)
    pkt.cols.info:set("ROC: " .. string.format("0x%X", rocid) .. " Offset: " .. offset)
    return buf:len()                      -- FIX 7
end

local ok, udplb_encap_table = pcall(DissectorTable.get, "udplb.proto")   -- FIX 6
if ok and udplb_encap_table ~= nil then
    udplb_encap_table:add(1, p_evio6seg)
end
local udp_encap_table = DissectorTable.get("udp.port")
udp_encap_table:add(0x4556, p_evio6seg)
