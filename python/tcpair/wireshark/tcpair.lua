-- Wireshark/tshark dissector for tcpair's TCP option: an experimental
-- option (kind 253) with the 16-bit ExID 0x7463 (RFC 6994, Touch 2013, §3).
-- Layout (docs/trace.md):
--   kind 253 | length | ExID 0x7463 | flags | packet id (u32)
--   then per Syndrome tag: BS node id (u16), wireless hop downstream (u8), attached number (u32)
--   then CLRP's loss blocks: one segment number (u32) each, to the option's end.
-- flags: bit 0 ELN, bits 1-2 origin (0 first transmission, 1 the sender's
-- retransmission, 2 a base station's local retransmission), bit 3 loss
-- blocks truncated, bits 4-5 the number of Syndrome tags.
-- Use: tshark -X lua_script:tcpair.lua -r FILE.pcap -Y "tcpair.eln == 1"

local EXID = 0x7463

local tcpair = Proto("tcpair", "tcpair simulator option")

local origins = {
    [0] = "first transmission",
    [1] = "sender retransmission",
    [2] = "BS local retransmission",
}

local f = {
    exid = ProtoField.uint16("tcpair.exid", "Experiment identifier", base.HEX),
    flags = ProtoField.uint8("tcpair.flags", "Flags", base.HEX),
    eln = ProtoField.uint8("tcpair.eln", "ELN", base.DEC, nil, 0x01),
    origin = ProtoField.uint8("tcpair.origin", "Origin", base.DEC, origins, 0x06),
    truncated = ProtoField.uint8("tcpair.truncated", "Loss blocks truncated", base.DEC, nil, 0x08),
    tags = ProtoField.uint8("tcpair.tags", "Syndrome tags", base.DEC, nil, 0x30),
    packet_id = ProtoField.uint32("tcpair.packet_id", "Packet id", base.DEC),
    bs_tag = ProtoField.uint16("tcpair.bs_tag", "Syndrome BS (node id)", base.DEC),
    downstream = ProtoField.uint8("tcpair.downstream_wireless", "Wireless hop downstream", base.DEC),
    an = ProtoField.uint32("tcpair.an", "Syndrome attached number", base.DEC),
    loss_blocks = ProtoField.uint32("tcpair.loss_blocks", "CLRP loss block (segment)", base.DEC),
}
tcpair.fields = { f.exid, f.flags, f.eln, f.origin, f.truncated, f.tags, f.packet_id,
                  f.bs_tag, f.downstream, f.an, f.loss_blocks }

local TAG_BYTES = 7

-- The TCP dissector hands each option over from its kind byte on.
function tcpair.dissector(tvb, pinfo, tree)
    local len = tvb:len()
    if len < 9 or tvb(2, 2):uint() ~= EXID then
        return 0
    end
    local t = tree:add(tcpair, tvb(0, len), "tcpair option")
    t:add(f.exid, tvb(2, 2))
    local flags = tvb(4, 1)
    local ft = t:add(f.flags, flags)
    ft:add(f.eln, flags)
    ft:add(f.origin, flags)
    ft:add(f.truncated, flags)
    ft:add(f.tags, flags)
    t:add(f.packet_id, tvb(5, 4))
    local ntags = bit.rshift(bit.band(flags:uint(), 0x30), 4)
    local off = 9
    for _ = 1, ntags do
        if off + TAG_BYTES > len then
            break
        end
        local tt = t:add(tcpair, tvb(off, TAG_BYTES), "Syndrome tag")
        tt:add(f.bs_tag, tvb(off, 2))
        tt:add(f.downstream, tvb(off + 2, 1))
        tt:add(f.an, tvb(off + 3, 4))
        off = off + TAG_BYTES
    end
    while off + 4 <= len do
        t:add(f.loss_blocks, tvb(off, 4))
        off = off + 4
    end
    return len
end

DissectorTable.get("tcp.option"):add(253, tcpair)
