-- udplb.lua: tshark/Wireshark dissector for the EJFAT load-balancer header, versions 1, 2 and 3.
--
--   v1 (the seed's spec, docs/lb.md), 12 bytes: magic "LB", version, protocol, 64-bit tick.
--   v2 / v3 (the udplb program, docs/lb-udplb.md: esnet/udplb @ 255e11b p4/udplb.p4 udplb_v2_t / udplb_v3_t,
--   the same layout as JeffersonLab/E2SAR include/e2sarHeaders.hpp LBHdrV2 / LBHdrV3), 16 bytes: magic,
--   version, protocol, then v2: reserved 16, entropy 16, tick 64; v3: slot select 16, port select 16, tick 64.
-- Decoding is dispatched on the version byte. Ports: UDP destination port 0x4C42 'LB' is always taken (a
-- bad magic or an unknown version there is an expert error); udplb.p4 also takes an LB header on every
-- destination port 0x4000..0x7FFF, where a heuristic takes the payload when it starts with the magic "LB"
-- (a member's data port in that range, after the LB removed the header, is left to other dissectors).
-- A payload to port 0x4C42 that starts with E2SAR's reassembly-header preamble 0x10 0x00 instead of "LB" is an
-- E2SAR receiver's data (E2SAR's default data port is 19522 = 0x4C42) and goes to e2sar_re.lua.
-- After the header: protocol 1 is E2SAR's reassembly header (e2sar_re.lua) when the payload starts with
-- 0x10 0x00 and has 20 bytes, else the "udplb.proto" table (evio6seg.lua registers 1: EVIO6 segment).
--
-- From the spec's "Tshark Plug-in for LB Meta-Data" (v1), with these fixes (tested on tshark 4.0):
--  FIX 1: packets with fewer bytes than the header made the spec's version raise "Lua Error: Range is out
--         of bounds"; such payloads now get an expert error (udplb.short) and no Lua error.
--  FIX 2: the protocol number and tick are read from the buffer instead of through Field.new accessors
--         (the spec's Field accessors return the first udplb field of the *frame*); the spec's commented-out
--         alternative `buf(13,1)` had the wrong offset: the protocol byte is at offset 3.
--  FIX 3: the encapsulated dissector is called only when bytes follow the LB header.
--  FIX 4: the dissector returns the number of bytes it consumed, as Wireshark expects.
-- v1 behaviour otherwise unchanged: same protocol, field names, display, table "udplb.proto", columns
-- (protocol UDP-LB, length = LB bytes, info "Tick: ..." when nothing is encapsulated).
--
-- Use:  tshark -X lua_script:udplb.lua -X lua_script:evio6seg.lua -X lua_script:e2sar_re.lua -r file.pcap
local p_udplb = Proto("udplb", "UDP Load Balancer Protocol")
local f_magic = ProtoField.string("udplb.magic", "Magic", base.ASCII)
local f_version = ProtoField.uint8("udplb.version", "Version", base.DEC)
local f_proto = ProtoField.uint8("udplb.proto", "Protocol", base.HEX)
local f_tick = ProtoField.uint64("udplb.tick", "Tick", base.HEX)
local f_rsvd = ProtoField.uint16("udplb.rsvd", "Reserved", base.HEX)
local f_entropy = ProtoField.uint16("udplb.entropy", "Entropy", base.HEX)
local f_slot = ProtoField.uint16("udplb.slot_select", "Slot Select", base.HEX)
local f_port = ProtoField.uint16("udplb.port_select", "Port Select", base.HEX)
p_udplb.fields = {
    f_magic,
    f_version,
    f_proto,
    f_tick,
    f_rsvd,
    f_entropy,
    f_slot,
    f_port,
}
local e_magic = ProtoExpert.new("udplb.bad_magic", "Bad LB magic (expected \"LB\" = 0x4C42)",
    expert.group.MALFORMED, expert.severity.ERROR)
local e_version = ProtoExpert.new("udplb.bad_version", "Unknown LB version (1, 2 and 3 are defined)",
    expert.group.MALFORMED, expert.severity.ERROR)
local e_short = ProtoExpert.new("udplb.short", "LB header cut short", expert.group.MALFORMED,
    expert.severity.ERROR)
p_udplb.experts = { e_magic, e_version, e_short }

local LB_PORT = 0x4c42
local LB_COMMON_LEN = 4
local HDR_LEN = { [1] = 12, [2] = 16, [3] = 16 }
local E2SAR_RE_LEN = 20
local p_udplb_encap_table = DissectorTable.new("udplb.proto", "UDP-LB Encap", ftypes.UINT8, base.DEC, p_udplb)

local function is_e2sar_re(buf, off)
    return buf:len() - off >= E2SAR_RE_LEN and buf(off, 1):uint() == 0x10 and buf(off + 1, 1):uint() == 0
end

-- E2SAR's reassembly header dissector, if e2sar_re.lua is loaded (looked up when needed: load order free).
local function e2sar_dissector()
    local ok, d = pcall(Dissector.get, "e2sar_re")
    if ok then
        return d
    end
    return nil
end

local function dissect(buf, pkt, tree)
    local n = buf:len()
    if n >= 2 and buf(0, 2):uint() ~= 0x4c42 and is_e2sar_re(buf, 0) then
        local d = e2sar_dissector()
        if d ~= nil then
            return d:call(buf, pkt, tree)
        end
    end
    if n < LB_COMMON_LEN then
        local t = tree:add(p_udplb, buf(0, n))
        t:add_proto_expert_info(e_short, string.format("%d bytes, the LB common header has 4", n))
        pkt.cols.protocol:set("UDP-LB")
        return n
    end
    local version = buf(2, 1):uint()
    local len = HDR_LEN[version]
    local t = tree:add(p_udplb, buf(0, math.min(n, len or LB_COMMON_LEN)))
    local mi = t:add(f_magic, buf(0, 2))
    t:add(f_version, buf(2, 1))
    t:add(f_proto, buf(3, 1))
    pkt.cols.protocol:set("UDP-LB")
    if buf(0, 2):uint() ~= 0x4c42 then
        mi:add_proto_expert_info(e_magic, string.format("Bad LB magic 0x%04X", buf(0, 2):uint()))
        return n
    end
    if len == nil then
        t:add_proto_expert_info(e_version, string.format("Unknown LB version %d", version))
        return n
    end
    if n < len then
        t:add_proto_expert_info(e_short, string.format("%d bytes, the v%d header has %d", n, version, len))
        return n
    end
    if version == 2 then
        t:add(f_rsvd, buf(4, 2))
        t:add(f_entropy, buf(6, 2))
    elseif version == 3 then
        t:add(f_slot, buf(4, 2))
        t:add(f_port, buf(6, 2))
    end
    t:add(f_tick, buf(len - 8, 8))
    local proto = buf(3, 1):uint()          -- FIX 2
    local tick = buf(len - 8, 8):uint64()
    if n > len then                          -- FIX 3
        local dissector = nil
        if proto == 1 and is_e2sar_re(buf, len) then
            dissector = e2sar_dissector()
        end
        if dissector == nil then
            dissector = p_udplb_encap_table:get_dissector(proto)
        end
        if dissector ~= nil then
            return len + dissector:call(buf(len):tvb(), pkt, tree)   -- FIX 4
        end
    end
    pkt.cols.packet_len:set(n)
    pkt.cols.info:set("Tick: " .. tostring(tick))
    return len
end

function p_udplb.dissector(buf, pkt, tree)
    return dissect(buf, pkt, tree)
end

-- udplb.p4's port range 0x4000..0x7FFF (other than 0x4C42): taken when the payload starts with "LB".
local function heuristic(buf, pkt, tree)
    if pkt.dst_port < 0x4000 or pkt.dst_port > 0x7fff or buf:len() < LB_COMMON_LEN
        or buf(0, 2):uint() ~= 0x4c42 then
        return false
    end
    dissect(buf, pkt, tree)
    return true
end

local udp_encap_table = DissectorTable.get("udp.port")
udp_encap_table:add(LB_PORT, p_udplb)
p_udplb:register_heuristic("udp", heuristic)
