-- udplb.lua: tshark/Wireshark dissector for the EJFAT load-balancer header (12 bytes after a
-- UDP header with destination port 0x4C42 'LB'): magic "LB", version, protocol, 64-bit tick.
--
-- From the spec's "Tshark Plug-in for LB Meta-Data", with these fixes (tested on tshark 4.0):
--  FIX 1: packets with fewer than 12 bytes after the UDP header made the spec's version raise
--         "Lua Error: Range is out of bounds"; such payloads are now left to the data dissector.
--  FIX 2: the protocol number and tick are read from the buffer instead of through Field.new
--         accessors (the spec's Field accessors return the first udplb field of the *frame*,
--         which is wrong when a frame holds more than one LB header); the spec's commented-out
--         alternative `buf(13,1)` had the wrong offset: the protocol byte is at offset 3.
--  FIX 3: the encapsulated dissector is called only when bytes follow the LB header (the spec
--         called it with an empty buffer for a bare LB header, which the EVIO6 dissector then
--         failed on).
--  FIX 4: the dissector returns the number of bytes it consumed, as Wireshark expects.
-- Behaviour otherwise unchanged: same protocol, field names, display, table "udplb.proto",
-- columns (protocol UDP-LB, length = LB bytes, info "Tick: ..." when nothing is encapsulated).
--
-- Use:  tshark -X lua_script:udplb.lua -X lua_script:evio6seg.lua -r file.pcap
local p_udplb = Proto("udplb", "UDP Load Balancer Protocol")
local f_magic = ProtoField.string("udplb.magic", "Magic", base.ASCII)
local f_version = ProtoField.uint8("udplb.version", "Version", base.DEC)
local f_proto = ProtoField.uint8("udplb.proto", "Protocol", base.HEX)
local f_tick = ProtoField.uint64("udplb.tick", "Tick", base.HEX)
p_udplb.fields = {
    f_magic,
    f_version,
    f_proto,
    f_tick,
}
local UDPLB_LEN = 12
local p_udplb_encap_table = DissectorTable.new("udplb.proto", "UDP-LB Encap", ftypes.UINT8, base.DEC, p_udplb)

function p_udplb.dissector(buf, pkt, tree)
    if buf:len() < UDPLB_LEN then          -- FIX 1
        return 0
    end
    local t = tree:add(p_udplb, buf(0, UDPLB_LEN))
    t:add(f_magic, buf(0, 2))
    t:add(f_version, buf(2, 1))
    t:add(f_proto, buf(3, 1))
    t:add(f_tick, buf(4, 8))
    local proto = buf(3, 1):uint()         -- FIX 2
    local tick = buf(4, 8):uint64()
    local dissector = p_udplb_encap_table:get_dissector(proto)
    if dissector ~= nil and buf:len() > UDPLB_LEN then   -- FIX 3
        -- found a dissector
        return UDPLB_LEN + dissector:call(buf(UDPLB_LEN):tvb(), pkt, tree)   -- FIX 4
    end
    pkt.cols.protocol:set("UDP-LB")
    pkt.cols.packet_len:set(buf:len())
    pkt.cols.info:set("Tick: " .. tostring(tick))
    return UDPLB_LEN
end

local udp_encap_table = DissectorTable.get("udp.port")
udp_encap_table:add(0x4c42, p_udplb)
