-- conweave.lua: tshark/Wireshark dissector for ConWeave fabric and control packets
-- (docs/reorder.md "Where the ConWeave fields ride", "Exact formats", "Control packets").
--
-- RoCEv2 = Ethernet / IPv4 or IPv6 / UDP dport 4791 / BTH (12 bytes) / ... / ICRC (4 bytes).
-- In a ConWeave fabric or control packet:
--   BTH byte 4 = PathID (8 bits),
--   BTH byte 8 = AckReq (bit 7) | CW opcode (bits 6..4) | epoch (bits 3..2) | REROUTED (bit 1) | TAIL (bit 0),
--   a 4-byte ConWeave header right after the BTH: TX_TSTAMP, TAIL_TX_TSTAMP (16 bits each, big-endian,
--   us modulo 2^16), then the NIC's extension headers / payload and the 4-byte ICRC (the NIC's ICRC:
--   it does not match in the fabric, so it is shown, not checked).
-- NIC frames (what hosts send and receive) have no CW header, so this dissector does NOT take UDP port
-- 4791 unless asked:
--   tshark -X lua_script:scripts/dissectors/conweave.lua -o conweave.enabled:TRUE -r fabric.pcap
--   Wireshark: copy to the personal Lua plugins folder (Help > About > Folders), then
--   Preferences > Protocols > CONWEAVE > "Dissect UDP port 4791 as ConWeave" (or Decode As... > CONWEAVE).
-- With the preference on, UDP port 4791 is given to this dissector instead of Wireshark's built-in RoCEv2
-- one ("IB", packet-infiniband.c); with it off again the built-in one is put back.
-- conweave.nic_view:TRUE also hands the NIC view of the packet (BTH byte 4 = 0, byte 8 = AckReq only, CW
-- header removed) to the built-in RoCEv2 dissector, so RETH / ImmDt / AETH are decoded as well (a control
-- packet carries no extension headers, so the built-in dissector may call that part malformed).
--
-- conweave.wire_format:conweave-p4 reads conweave-p4's layout instead (docs/reorder.md "Two wire formats";
-- conweave-project/conweave-p4 39b34be headers.p4): BTH byte 8 = AckReq | opcode (bits 6..5: 0 nothing,
-- 1 DATA, 2 REPLY, 3 NOTIFY) | phase (bit 4) | epoch (bits 3..2) | ask_reply (bit 1) | tail (bit 0), the CW
-- header only when the opcode is not 0, and on DATA the IP/UDP lengths do not count it (so the ICRC lies
-- beyond the UDP length: not shown). conweave.op / .epoch / .rerouted then carry the seed's meaning (DATA with
-- ask_reply and no tail = RTT_REQUEST, REPLY phase 0 = RTT_REPLY, REPLY phase 1 = CLEAR; epoch + phase;
-- REROUTED = phase on DATA), the raw bits are conweave.p4.opcode / .phase / .epoch / .ask_reply.
--
-- Fields: conweave.bth.opcode / .se / .mig / .padcnt / .tver / .pkey / .dqpn / .ackreq / .psn,
-- conweave.path_id, conweave.op, conweave.epoch, conweave.rerouted, conweave.tail, conweave.tx_tstamp,
-- conweave.tail_tx_tstamp, conweave.payload_len (bytes between the CW header and the ICRC),
-- conweave.icrc (last 4 bytes of the UDP payload = of the IP datagram).
-- Info: "ConWeave NORMAL ep 1 REROUTED path 5 QP 0x123456 PSN 0x000010".
-- Short packets get an expert error (conweave.malformed) instead of a Lua error.
-- Tested on tshark 4.0 by nettwin.reorder.test_dissector.

local ROCE_PORT = 4791
local BTH_LEN = 12
local CW_HDR_LEN = 4
local ICRC_LEN = 4

local p_cw = Proto("conweave", "ConWeave (RoCEv2 fabric / control)")

local cw_ops = { [0] = "NORMAL", [1] = "RTT_REQUEST", [2] = "RTT_REPLY", [3] = "CLEAR", [4] = "NOTIFY" }
local p4_ops = { [0] = "nothing (no ConWeave header)", [1] = "DATA", [2] = "REPLY", [3] = "NOTIFY" }
local FMT_SEED, FMT_P4 = 1, 2

-- IBTA transport opcodes of the RoCEv2 traffic ConWeave carries (RC, UC, UD); others show as numbers.
local bth_ops = {
    [0x00] = "RC SEND First", [0x01] = "RC SEND Middle", [0x02] = "RC SEND Last",
    [0x03] = "RC SEND Last with Immediate", [0x04] = "RC SEND Only", [0x05] = "RC SEND Only with Immediate",
    [0x06] = "RC RDMA WRITE First", [0x07] = "RC RDMA WRITE Middle", [0x08] = "RC RDMA WRITE Last",
    [0x09] = "RC RDMA WRITE Last with Immediate", [0x0A] = "RC RDMA WRITE Only",
    [0x0B] = "RC RDMA WRITE Only with Immediate", [0x0C] = "RC RDMA READ Request",
    [0x0D] = "RC RDMA READ response First", [0x0E] = "RC RDMA READ response Middle",
    [0x0F] = "RC RDMA READ response Last", [0x10] = "RC RDMA READ response Only", [0x11] = "RC Acknowledge",
    [0x12] = "RC ATOMIC Acknowledge", [0x13] = "RC CmpSwap", [0x14] = "RC FetchAdd",
    [0x16] = "RC SEND Last with Invalidate", [0x17] = "RC SEND Only with Invalidate",
    [0x20] = "UC SEND First", [0x21] = "UC SEND Middle", [0x22] = "UC SEND Last",
    [0x23] = "UC SEND Last with Immediate", [0x24] = "UC SEND Only", [0x25] = "UC SEND Only with Immediate",
    [0x26] = "UC RDMA WRITE First", [0x27] = "UC RDMA WRITE Middle", [0x28] = "UC RDMA WRITE Last",
    [0x29] = "UC RDMA WRITE Last with Immediate", [0x2A] = "UC RDMA WRITE Only",
    [0x2B] = "UC RDMA WRITE Only with Immediate",
    [0x64] = "UD SEND Only", [0x65] = "UD SEND Only with Immediate",
}

local f = {
    bth = ProtoField.bytes("conweave.bth", "Base Transport Header"),
    opcode = ProtoField.uint8("conweave.bth.opcode", "Opcode", base.HEX, bth_ops),
    se = ProtoField.bool("conweave.bth.se", "Solicited Event", 8, nil, 0x80),
    mig = ProtoField.bool("conweave.bth.mig", "MigReq", 8, nil, 0x40),
    padcnt = ProtoField.uint8("conweave.bth.padcnt", "Pad Count", base.DEC, nil, 0x30),
    tver = ProtoField.uint8("conweave.bth.tver", "Header Version", base.DEC, nil, 0x0F),
    pkey = ProtoField.uint16("conweave.bth.pkey", "Partition Key", base.HEX),
    path_id = ProtoField.uint8("conweave.path_id", "PathID", base.DEC),
    dqpn = ProtoField.uint24("conweave.bth.dqpn", "Destination QP", base.HEX),
    ackreq = ProtoField.bool("conweave.bth.ackreq", "AckReq", 8, nil, 0x80),
    -- the seed's meaning in either wire format (values, not bit masks)
    op = ProtoField.uint8("conweave.op", "ConWeave opcode", base.DEC, cw_ops),
    epoch = ProtoField.uint8("conweave.epoch", "Epoch", base.DEC),
    rerouted = ProtoField.bool("conweave.rerouted", "REROUTED"),
    p4_opcode = ProtoField.uint8("conweave.p4.opcode", "conweave-p4 opcode", base.DEC, p4_ops, 0x60),
    p4_phase = ProtoField.uint8("conweave.p4.phase", "conweave-p4 phase", base.DEC, nil, 0x10),
    p4_epoch = ProtoField.uint8("conweave.p4.epoch", "conweave-p4 epoch", base.DEC, nil, 0x0C),
    p4_ask = ProtoField.bool("conweave.p4.ask_reply", "conweave-p4 ask_reply", 8, nil, 0x02),
    tail = ProtoField.bool("conweave.tail", "TAIL", 8, nil, 0x01),
    psn = ProtoField.uint24("conweave.bth.psn", "Packet Sequence Number", base.HEX),
    cwhdr = ProtoField.bytes("conweave.hdr", "ConWeave header"),
    tx_tstamp = ProtoField.uint16("conweave.tx_tstamp", "TX_TSTAMP (us mod 2^16)", base.DEC),
    tail_tx_tstamp = ProtoField.uint16("conweave.tail_tx_tstamp", "TAIL_TX_TSTAMP (us mod 2^16)", base.DEC),
    payload_len = ProtoField.uint32("conweave.payload_len", "Extension headers + payload length", base.DEC),
    icrc = ProtoField.uint32("conweave.icrc", "ICRC (not checked)", base.HEX),
}
p_cw.fields = {
    f.bth, f.opcode, f.se, f.mig, f.padcnt, f.tver, f.pkey, f.path_id, f.dqpn, f.ackreq, f.op, f.epoch,
    f.rerouted, f.tail, f.psn, f.cwhdr, f.tx_tstamp, f.tail_tx_tstamp, f.payload_len, f.icrc,
    f.p4_opcode, f.p4_phase, f.p4_epoch, f.p4_ask,
}

local e_malformed = ProtoExpert.new("conweave.malformed", "Malformed ConWeave packet",
    expert.group.MALFORMED, expert.severity.ERROR)
local e_truncated = ProtoExpert.new("conweave.truncated", "Packet not fully captured",
    expert.group.UNDECODED, expert.severity.WARN)
local e_bad_op = ProtoExpert.new("conweave.bad_op", "Undefined ConWeave opcode",
    expert.group.PROTOCOL, expert.severity.WARN)
local e_nic_view = ProtoExpert.new("conweave.nic_view_error", "Built-in RoCEv2 dissector failed on the NIC view",
    expert.group.MALFORMED, expert.severity.NOTE)
p_cw.experts = { e_malformed, e_truncated, e_bad_op, e_nic_view }

p_cw.prefs.enabled = Pref.bool("Dissect UDP port 4791 as ConWeave", false,
    "Give UDP port 4791 (RoCEv2) to the ConWeave dissector instead of the built-in RoCEv2 dissector. "
    .. "Only for captures of ConWeave fabric / control packets: plain RoCEv2 (NIC) frames have no "
    .. "ConWeave header and would be shown wrongly.")
p_cw.prefs.nic_view = Pref.bool("Also dissect the NIC view with the RoCEv2 dissector", false,
    "Hand the packet with the ConWeave fields removed (BTH byte 4 = 0, byte 8 = AckReq only, no "
    .. "ConWeave header) to the built-in RoCEv2 dissector, to decode extension headers and payload.")

p_cw.prefs.wire_format = Pref.enum("Wire format", FMT_SEED,
    "The seed's BTH byte 8 (opcode 3 bits | epoch | REROUTED | TAIL, lengths grown for the ConWeave header) "
    .. "or conweave-p4's (opcode 2 bits | phase | epoch | ask_reply | tail, lengths not grown on DATA)",
    { { 1, "seed", FMT_SEED }, { 2, "conweave-p4", FMT_P4 } }, false)

local udp_table = DissectorTable.get("udp.port")
local builtin = udp_table:get_dissector(ROCE_PORT)   -- Wireshark's RoCEv2 handle (may be nil)
local registered = false

local function malformed(pinfo, item, msg)
    item:add_proto_expert_info(e_malformed, msg)
    pinfo.cols.info:append(" [Malformed: " .. msg .. "]")
end

local function nic_view(buf, pinfo, tree)
    -- BTH with byte 4 = 0 and byte 8 = AckReq only, then everything after the CW header.
    local ba = buf:bytes(0, BTH_LEN)
    ba:set_index(4, 0)
    ba:set_index(8, bit.band(ba:get_index(8), 0x80))
    if buf:len() > BTH_LEN + CW_HDR_LEN then
        ba:append(buf:bytes(BTH_LEN + CW_HDR_LEN))
    end
    local ok, err = pcall(function()
        builtin:call(ba:tvb("NIC view (ConWeave fields removed)"), pinfo, tree)
    end)
    if not ok then
        tree:add_proto_expert_info(e_nic_view, "Built-in RoCEv2 dissector on the NIC view: " .. tostring(err))
    end
end

function p_cw.dissector(buf, pinfo, tree)
    local cap = buf:len()                 -- bytes captured
    local rep = buf:reported_len()        -- UDP payload length on the wire
    pinfo.cols.protocol:set("ConWeave")
    local t = tree:add(p_cw, buf())
    if cap < rep then
        t:add_proto_expert_info(e_truncated, string.format("only %d of %d UDP payload bytes captured", cap, rep))
    end
    if rep < BTH_LEN or cap < BTH_LEN then
        pinfo.cols.info:set("ConWeave")
        malformed(pinfo, t, string.format("%d bytes, shorter than a BTH (%d)", math.min(cap, rep), BTH_LEN))
        return cap
    end

    -- BTH
    local bt = t:add(f.bth, buf(0, BTH_LEN))
    bt:set_text("Base Transport Header (ConWeave)")
    bt:add(f.opcode, buf(0, 1))
    bt:add(f.se, buf(1, 1))
    bt:add(f.mig, buf(1, 1))
    bt:add(f.padcnt, buf(1, 1))
    bt:add(f.tver, buf(1, 1))
    bt:add(f.pkey, buf(2, 2))
    bt:add(f.path_id, buf(4, 1))
    bt:add(f.dqpn, buf(5, 3))
    bt:add(f.ackreq, buf(8, 1))

    local path_id = buf(4, 1):uint()
    local dqpn = buf(5, 3):uint()
    local b8 = buf(8, 1):uint()
    local psn = buf(9, 3):uint()
    local p4 = p_cw.prefs.wire_format == FMT_P4
    local op = bit.band(bit.rshift(b8, 4), 7)
    local epoch = bit.band(bit.rshift(b8, 2), 3)
    local rerouted = bit.band(b8, 2) ~= 0
    local grown = true      -- the IP/UDP lengths count the ConWeave header
    if p4 then
        local code = bit.band(bit.rshift(b8, 5), 3)
        local phase = bit.band(bit.rshift(b8, 4), 1)
        local ask = bit.band(b8, 2) ~= 0
        bt:add(f.p4_opcode, buf(8, 1))
        bt:add(f.p4_phase, buf(8, 1))
        bt:add(f.p4_epoch, buf(8, 1))
        bt:add(f.p4_ask, buf(8, 1))
        if code == 0 then
            bt:add(f.psn, buf(9, 3))
            pinfo.cols.info:set(string.format("RoCEv2 (conweave-p4 opcode 0: no ConWeave header) QP 0x%06x PSN 0x%06x",
                dqpn, psn))
            return cap
        end
        if code == 1 then
            op = (ask and bit.band(b8, 1) == 0) and 1 or 0
            grown = false
        elseif code == 2 then
            op = phase == 1 and 3 or 2
        else
            op = 4
        end
        epoch = bit.band(epoch + phase, 3)
        rerouted = code == 1 and phase == 1
    end
    local opi = bt:add(f.op, buf(8, 1), op)
    bt:add(f.epoch, buf(8, 1), epoch)
    bt:add(f.rerouted, buf(8, 1), rerouted)
    bt:add(f.tail, buf(8, 1))
    bt:add(f.psn, buf(9, 3))

    local info = "ConWeave " .. (cw_ops[op] or string.format("op%d", op)) .. " ep " .. epoch
    if rerouted then info = info .. " REROUTED" end
    if bit.band(b8, 1) ~= 0 then info = info .. " TAIL" end
    info = info .. string.format(" path %d QP 0x%06x PSN 0x%06x", path_id, dqpn, psn)
    t:append_text(string.format(", %s, path %d, QP 0x%06x, PSN 0x%06x",
        cw_ops[op] or string.format("op%d", op), path_id, dqpn, psn))
    if cw_ops[op] == nil then
        opi:add_proto_expert_info(e_bad_op, string.format("ConWeave opcode %d is not defined (0..4)", op))
    end

    if builtin ~= nil and p_cw.prefs.nic_view and cap == rep then
        nic_view(buf, pinfo, tree)
    end
    pinfo.cols.protocol:set("ConWeave")
    pinfo.cols.info:set(info)

    -- ConWeave header
    if rep < BTH_LEN + CW_HDR_LEN or cap < BTH_LEN + CW_HDR_LEN then
        malformed(pinfo, t, string.format("%d bytes after the UDP header, no room for the 4-byte ConWeave header",
            math.min(cap, rep)))
        return cap
    end
    local ht = t:add(f.cwhdr, buf(BTH_LEN, CW_HDR_LEN))
    ht:set_text("ConWeave header")
    ht:add(f.tx_tstamp, buf(BTH_LEN, 2))
    ht:add(f.tail_tx_tstamp, buf(BTH_LEN + 2, 2))

    -- extension headers / payload, ICRC
    if not grown then
        -- conweave-p4 DATA: the UDP length does not count the ConWeave header, so the datagram holds 4 more
        -- bytes than `rep` says and its ICRC lies beyond the UDP payload Wireshark hands over (not shown)
        if rep < BTH_LEN + ICRC_LEN then
            malformed(pinfo, t, string.format("%d bytes after the UDP header, no room for the ICRC", rep))
            return cap
        end
        local plen = rep - BTH_LEN - ICRC_LEN
        local after = BTH_LEN + CW_HDR_LEN
        if cap >= after + plen then
            t:add(f.payload_len, buf(after, plen), plen)
        else
            t:add(f.payload_len, plen):set_generated()
        end
        return cap
    end
    local after = BTH_LEN + CW_HDR_LEN
    if rep < after + ICRC_LEN then
        malformed(pinfo, t, string.format("%d bytes after the UDP header, no room for the ICRC", rep))
        return cap
    end
    local plen = rep - after - ICRC_LEN
    if cap >= after + plen then
        t:add(f.payload_len, buf(after, plen), plen)
    else
        t:add(f.payload_len, plen):set_generated()
    end
    if cap >= rep then
        t:add(f.icrc, buf(rep - ICRC_LEN, ICRC_LEN))
    end
    return cap
end

local function apply_prefs()
    if p_cw.prefs.enabled and not registered then
        udp_table:add(ROCE_PORT, p_cw)
        registered = true
    elseif not p_cw.prefs.enabled and registered then
        if builtin ~= nil then
            udp_table:add(ROCE_PORT, builtin)
        else
            udp_table:remove(ROCE_PORT, p_cw)
        end
        registered = false
    end
end

function p_cw.prefs_changed()
    apply_prefs()
end

udp_table:add_for_decode_as(p_cw)   -- "Decode As... > CONWEAVE" for any UDP port
apply_prefs()
