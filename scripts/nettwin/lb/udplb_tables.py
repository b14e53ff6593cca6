"""Control-plane script parser and table state of the `udplb` program (docs/lb-udplb.md "Tables").

Written from docs/lb-udplb.md and esnet/udplb @ 255e11b p4/udplb.p4 (never from the C++ model or the RTL).
The script is udplb's simulator CLI format, as p4/sim/test-1/cli_commands.txt writes it:

    table_add <table> <action> <key>... => <param>... [priority]
    table_delete <table> <key>... [priority]
    table_clear <table>
    run_traffic [name|count]
    # comment to the end of the line

Keys: exact values; field_mask keys `value&&&mask` (a plain value is mask all ones); lpm keys
`value/prefix_len` (nothing else). Numbers and addresses as docs/lb.md (0x hex, decimal, dotted
IPv4, MAC, IPv6). Priority: field_mask tables (l2_iface, mac_dst_filter, ip_dst_filter) require the trailing
priority (lowest value wins, ties to the lower table index; a new entry takes the lowest free index, as
the driver does: docs/lb-udplb.md "Tables"); the lpm table (epoch_assign) accepts and ignores
it (longest prefix wins); exact tables take none.

Refusals (each a ScriptError `file:line: token 'x': message`, raised while the whole script is applied, so
before any traffic), in the order they are checked for one command:
  * syntax: unknown command, unknown table, unknown action for the table, missing '=>', wrong number of
    keys, wrong number of params (field_mask tables: the priority is required; exact tables: none allowed),
    a run_traffic / table command where keys or params were expected;
  * values: not a number or address, value too wide for the key / param (e.g. set_ip_sa lb_id > 7,
    slot_select_bit_cnt > 31), mask too wide, an lpm key without /prefix_len, prefix length > key width,
    priority > 0xFFFF;
  * lb_id > 7 as a key of the source filters, epoch, calendar or member table (the RTL stores 3 bits: the
    instances are 0..7, set_ip_sa's lb_id is 3 bits);
  * member_info_lookup_table: EtherType key neither 0x0800 nor 0x86DD; do_ipv4_member_rewrite under a key
    other than 0x0800 or do_ipv6_member_rewrite under one other than 0x86DD;
  * load_balance_calendar_table: slot >= 512 (RTL calendar rows of 512 slots);
  * duplicate key (exact tables: same key; field_mask: same masked values, masks and priority; lpm: same
    lb_id, masked value and prefix length);
  * capacity: table full (l2_iface 17, mac_dst 64, ip_dst 64, ipv4 / ipv6 source 64 each, epoch 128);
    calendar: a 33rd distinct (lb_id, epoch) row (32 rows; a row is freed when its last entry goes);
    member: two members of one (lb_id, family) with equal low 6 bits (direct mapped, 64 per instance and
    family, member[15:6] is the tag);
  * table_delete of a missing entry; a field_mask delete without priority that matches several entries.
"""
import copy
from dataclasses import dataclass

from nettwin.lb import tables as seed_tables
from nettwin.lb.tables import COMMANDS, ScriptError, Token, check_width, key_value, number, split_commands

ETH_IPV4 = 0x0800
ETH_ARP = 0x0806
ETH_VLAN = 0x8100
ETH_IPV6 = 0x86DD

L2_IFACE = "l2_iface_table"
MAC_DST = "mac_dst_filter_table"
IP_DST = "ip_dst_filter_table"
SRC4 = "ipv4_src_filter_table"
SRC6 = "ipv6_src_filter_table"
EPOCH = "epoch_assign_table"
CALENDAR = "load_balance_calendar_table"
MEMBER = "member_info_lookup_table"

EXACT, FM, LPM = "exact", "field_mask", "lpm"
_REWRITE = [("mac_dst", 48), ("ip_dst", 0), ("udp_base", 16), ("port_select_bit_cnt", 5),
            ("keep_lb_header", 1)]

# Per table: keys (name, width, kind) and per action its params (name, width), from udplb.p4.
SCHEMA = {
    L2_IFACE: {"keys": [("vlan_id", 12, FM)],
               "actions": {"set_l2_iface": [("l2_iface_id", 4), ("l2_iface_uc_mac", 48)]}},
    MAC_DST: {"keys": [("ingress_l2_iface_id", 4, FM), ("dstAddr", 48, EXACT)],
              "actions": {"set_mac_sa": [("mac_sa", 48)], "l2_dst_allow": []}},
    IP_DST: {"keys": [("ingress_l2_iface_id", 4, FM), ("etherType", 16, EXACT), ("ip_da", 128, EXACT)],
             "actions": {"set_ip_sa": [("ip_sa", 128), ("lb_id", 3)]}},
    SRC4: {"keys": [("lb_id", 8, EXACT), ("srcAddr", 32, EXACT)], "actions": {"allow_ip_src": []}},
    SRC6: {"keys": [("lb_id", 8, EXACT), ("srcAddr", 128, EXACT)], "actions": {"allow_ip_src": []}},
    EPOCH: {"keys": [("lb_id", 8, EXACT), ("tick", 64, LPM)],
            "actions": {"do_assign_epoch": [("epoch", 32)],
                        "do_assign_epoch_with_slot_sel_opts": [("epoch", 32), ("slot_select_bit_cnt", 5),
                                                               ("slot_select_xor", 16)]}},
    CALENDAR: {"keys": [("lb_id", 8, EXACT), ("epoch", 32, EXACT), ("calendar_slot", 16, EXACT)],
               "actions": {"do_assign_member": [("member_id", 16)]}},
    MEMBER: {"keys": [("lb_id", 8, EXACT), ("etherType", 16, EXACT), ("member_id", 16, EXACT)],
             "actions": {"do_ipv4_member_rewrite": [(n, w or 32) for n, w in _REWRITE],
                         "do_ipv6_member_rewrite": [(n, w or 128) for n, w in _REWRITE],
                         "drop_soft_evicted": [], "drop_deregistered": []}},
}

# Capacities of the RTL (docs/lb-udplb.md "Capacities of the RTL"; rtl/common/nt_pkg.sv Udplb*).
CAPACITY = {L2_IFACE: 17, MAC_DST: 64, IP_DST: 64, SRC4: 64, SRC6: 64, EPOCH: 128}
INSTANCES = 8
CALENDAR_ROWS = 32
CALENDAR_SLOTS = 512
MEMBERS_PER_FAMILY = 64


def table_kind(table):
    kinds = {k for _, _, k in SCHEMA[table]["keys"]}
    return FM if FM in kinds else LPM if LPM in kinds else EXACT


def parse_script(text, filename="<tables>"):
    """Split the token stream into commands (syntax only; values are checked when applied)."""
    return split_commands(text, filename, SCHEMA, _take_params, _delete_priority)


def _take_params(cmd, toks, i):
    """The action's params, then the priority: required for field_mask tables, optional (ignored) for the
    lpm table, none for exact tables."""
    rest = []
    while i < len(toks) and toks[i].text not in COMMANDS:
        rest.append(toks[i])
        i += 1
    nparams = len(SCHEMA[cmd.table]["actions"][cmd.action])
    kind = table_kind(cmd.table)
    allowed = {FM: (nparams + 1,), LPM: (nparams, nparams + 1), EXACT: (nparams,)}[kind]
    if len(rest) not in allowed:
        bad = rest[-1] if rest else toks[i - 1]
        what = {FM: f"{nparams} and the priority", LPM: f"{nparams} (and an optional priority)",
                EXACT: f"{nparams} (no priority: exact table)"}[kind]
        raise ScriptError(bad, f"wrong number of params: {cmd.action} takes {what}, got {len(rest)}")
    cmd.param_toks = rest[:nparams]
    if len(rest) > nparams:
        cmd.prio_tok = rest[nparams]
    return i


def _delete_priority(cmd):
    if table_kind(cmd.table) != EXACT and len(cmd.key_toks) == len(SCHEMA[cmd.table]["keys"]) + 1:
        cmd.prio_tok = cmd.key_toks.pop()


# ---------------------------------------------------------------------------------------------
# Key values
# ---------------------------------------------------------------------------------------------

def _sub(tok, text):
    return Token(text, tok.file, tok.line)


def fm_key(tok, width):
    """`value&&&mask` or a plain value (mask all ones) -> (value & mask, mask)."""
    full = (1 << width) - 1
    if "&&&" in tok.text:
        v, m = tok.text.split("&&&", 1)
        value = check_width(tok, key_value(_sub(tok, v)), width, "key value")
        mask = check_width(tok, key_value(_sub(tok, m)), width, "key mask")
        return value & mask, mask
    return check_width(tok, key_value(tok), width, "key"), full


def lpm_key(tok, width):
    """`value/prefix_len` -> (value masked to the prefix, prefix_len); a plain value is refused (an lpm key is
    written value/prefix_len, as udplb's scripts and the BMv2 CLI write it)."""
    if "/" not in tok.text:
        raise ScriptError(tok, "an lpm key is value/prefix_len")
    v, p = tok.text.split("/", 1)
    value = check_width(tok, key_value(_sub(tok, v)), width, "key value")
    plen = number(_sub(tok, p))
    if plen > width:
        raise ScriptError(tok, f"prefix length {plen} > {width}")
    return value & prefix_mask(plen, width), plen


def prefix_mask(plen, width=64):
    return ((1 << width) - 1) ^ ((1 << (width - plen)) - 1)


def exact_key(tok, width, name):
    return check_width(tok, key_value(tok), width, name)


# ---------------------------------------------------------------------------------------------
# Table state
# ---------------------------------------------------------------------------------------------

@dataclass
class TernaryEntry:
    """A field_mask entry: keys [(value, mask)] (exact keys with mask all ones)."""
    keys: tuple
    priority: int
    index: int                     # its table index: ties go to the lowest
    action: str
    params: tuple

    def matches(self, values):
        return all((v & m) == kv for v, (kv, m) in zip(values, self.keys))


@dataclass
class EpochEntry:
    lb_id: int
    value: int
    plen: int
    epoch: int
    bits: int
    xor: int


@dataclass
class MemberEntry:
    lb_id: int
    ethertype: int
    member: int
    action: str            # do_ipv4_member_rewrite / do_ipv6_member_rewrite / drop_soft_evicted / drop_deregistered
    mac: int = 0
    ip: int = 0
    udp_base: int = 0
    port_bits: int = 0
    keep: int = 0


class Tables:
    """The eight tables; apply() executes one table command, the lookups are the data plane's view."""

    def __init__(self):
        self.ternary = {t: [None] * CAPACITY[t] for t in (L2_IFACE, MAC_DST, IP_DST)}   # index -> entry
        self.src = {SRC4: set(), SRC6: set()}     # (lb_id, address)
        self.epoch = []                            # EpochEntry
        self.calendar = {}                         # (lb_id, epoch, slot) -> member
        self.member = {}                           # (lb_id, family, member & 63) -> MemberEntry

    def copy(self):
        return copy.deepcopy(self)

    # --- lookups (None = miss) ---------------------------------------------------------------
    def ternary_lookup(self, table, values):
        best = None
        for e in self.ternary[table]:
            if e is not None and e.matches(values) and (best is None or e.priority < best.priority):
                best = e
        return best

    def src_lookup(self, table, lb_id, addr):
        return (lb_id, addr) in self.src[table]

    def epoch_lookup(self, lb_id, tick):
        best = None
        for e in self.epoch:
            if e.lb_id == lb_id and (tick & prefix_mask(e.plen)) == e.value:
                if best is None or e.plen > best.plen:
                    best = e
        return best

    def calendar_lookup(self, lb_id, epoch, slot):
        return self.calendar.get((lb_id, epoch, slot))

    def member_lookup(self, lb_id, ethertype, member):
        fam = {ETH_IPV4: 0, ETH_IPV6: 1}.get(ethertype)
        if fam is None:
            return None
        e = self.member.get((lb_id, fam, member & (MEMBERS_PER_FAMILY - 1)))
        return e if e is not None and e.member == member else None

    def calendar_rows(self):
        return sorted({(lb, ep) for lb, ep, _ in self.calendar})

    # --- commands ----------------------------------------------------------------------------
    def apply(self, cmd):
        if cmd.kind == "table_clear":
            self.clear(cmd.table)
        elif cmd.kind == "table_add":
            self.add(cmd)
        elif cmd.kind == "table_delete":
            self.delete(cmd)

    def clear(self, table):
        if table in self.ternary:
            self.ternary[table] = [None] * CAPACITY[table]
        elif table in self.src:
            self.src[table] = set()
        elif table == EPOCH:
            self.epoch = []
        elif table == CALENDAR:
            self.calendar = {}
        else:
            self.member = {}

    def _keys(self, cmd):
        """Parsed key values in schema order: exact -> int, field_mask -> (value, mask),
        lpm -> (value, plen); lb_id keys checked against the 8 instances."""
        schema = SCHEMA[cmd.table]["keys"]
        if len(cmd.key_toks) != len(schema):
            bad = cmd.key_toks[-1] if cmd.key_toks else cmd.tok
            raise ScriptError(bad, f"wrong number of keys for {cmd.table}: {len(cmd.key_toks)} "
                              f"(expected {len(schema)})")
        vals = []
        for t, (name, width, kind) in zip(cmd.key_toks, schema):
            if kind == FM:
                vals.append(fm_key(t, width))
            elif kind == LPM:
                vals.append(lpm_key(t, width))
            else:
                v = exact_key(t, width, name)
                if name == "lb_id" and v >= INSTANCES:
                    raise ScriptError(t, f"{cmd.table}: lb_id {v} > 7 (udplb instances are 0..7: set_ip_sa's "
                                      "lb_id is 3 bits, the RTL stores 3)")
                vals.append(v)
        return vals

    def _params(self, cmd):
        spec = SCHEMA[cmd.table]["actions"][cmd.action]
        return [check_width(t, key_value(t), w, name) for t, (name, w) in zip(cmd.param_toks, spec)]

    @staticmethod
    def _prio(cmd):
        if cmd.prio_tok is None:
            return None
        return check_width(cmd.prio_tok, number(cmd.prio_tok), 16, "priority")

    def add(self, cmd):
        table = cmd.table
        keys = self._keys(cmd)
        params = self._params(cmd)
        prio = self._prio(cmd)
        first = cmd.key_toks[0]
        if table in self.ternary:
            tkeys = tuple(k if isinstance(k, tuple) else (k, (1 << w) - 1)
                          for k, (_, w, _) in zip(keys, SCHEMA[table]["keys"]))
            ents = self.ternary[table]
            if any(e is not None and e.keys == tkeys and e.priority == prio for e in ents):
                raise ScriptError(first, f"duplicate key in {table} (same keys, masks and priority)")
            if None not in ents:
                raise ScriptError(cmd.tok, f"{table} full ({CAPACITY[table]} entries)")
            k = ents.index(None)
            ents[k] = TernaryEntry(tkeys, prio, k, cmd.action, tuple(params))
        elif table in self.src:
            key = tuple(keys)
            if key in self.src[table]:
                raise ScriptError(first, f"duplicate key in {table}")
            if len(self.src[table]) >= CAPACITY[table]:
                raise ScriptError(cmd.tok, f"{table} full ({CAPACITY[table]} entries)")
            self.src[table].add(key)
        elif table == EPOCH:
            lb_id, (value, plen) = keys
            if any((e.lb_id, e.value, e.plen) == (lb_id, value, plen) for e in self.epoch):
                raise ScriptError(cmd.key_toks[1], f"duplicate key in {EPOCH} (lb_id {lb_id}, prefix "
                                  f"0x{value:x}/{plen})")
            if len(self.epoch) >= CAPACITY[EPOCH]:
                raise ScriptError(cmd.tok, f"{EPOCH} full ({CAPACITY[EPOCH]} entries)")
            if cmd.action == "do_assign_epoch":
                epoch, bits, xor = params[0], 9, 0
            else:
                epoch, bits, xor = params
            self.epoch.append(EpochEntry(lb_id, value, plen, epoch, bits, xor))
        elif table == CALENDAR:
            lb_id, epoch, slot = keys
            if slot >= CALENDAR_SLOTS:
                raise ScriptError(cmd.key_toks[2], f"{CALENDAR}: slot {slot} >= {CALENDAR_SLOTS} (the RTL's "
                                  f"calendar rows have {CALENDAR_SLOTS} slots)")
            if (lb_id, epoch, slot) in self.calendar:
                raise ScriptError(first, f"duplicate key in {CALENDAR}")
            rows = self.calendar_rows()
            if (lb_id, epoch) not in rows and len(rows) >= CALENDAR_ROWS:
                raise ScriptError(cmd.key_toks[1], f"{CALENDAR} full: already {CALENDAR_ROWS} (lb_id, epoch) "
                                  f"rows; (lb_id {lb_id}, epoch 0x{epoch:x}) needs another")
            self.calendar[(lb_id, epoch, slot)] = params[0]
        else:
            lb_id, et, mid = keys
            fam = self._member_family(cmd, et)
            need = {"do_ipv4_member_rewrite": ETH_IPV4, "do_ipv6_member_rewrite": ETH_IPV6}.get(cmd.action)
            if need is not None and et != need:
                raise ScriptError(cmd.key_toks[1], f"{MEMBER}: EtherType 0x{et:04x} does not match "
                                  f"{cmd.action}")
            slot = (lb_id, fam, mid & (MEMBERS_PER_FAMILY - 1))
            old = self.member.get(slot)
            if old is not None and old.member == mid:
                raise ScriptError(cmd.key_toks[2], f"duplicate key in {MEMBER}")
            if old is not None:
                raise ScriptError(cmd.key_toks[2], f"{MEMBER}: member slot collision: member {mid} (0x{mid:x}) "
                                  f"and member {old.member} (0x{old.member:x}) of lb_id {lb_id} EtherType "
                                  f"0x{et:04x} have equal low 6 bits ({MEMBERS_PER_FAMILY} per instance "
                                  "and family, direct mapped)")
            e = MemberEntry(lb_id, et, mid, cmd.action)
            if params:
                e.mac, e.ip, e.udp_base, e.port_bits, e.keep = params
            self.member[slot] = e

    @staticmethod
    def _member_family(cmd, et):
        if et not in (ETH_IPV4, ETH_IPV6):
            raise ScriptError(cmd.key_toks[1], f"{MEMBER}: EtherType 0x{et:04x} is neither IPv4 (0x0800) nor "
                              "IPv6 (0x86DD) (the RTL keeps one member bank per family)")
        return 0 if et == ETH_IPV4 else 1

    def delete(self, cmd):
        table = cmd.table
        keys = self._keys(cmd)
        first = cmd.key_toks[0]
        missing = ScriptError(first, f"delete of a missing entry in {table}")
        if table in self.ternary:
            prio = self._prio(cmd)
            tkeys = tuple(k if isinstance(k, tuple) else (k, (1 << w) - 1)
                          for k, (_, w, _) in zip(keys, SCHEMA[table]["keys"]))
            hits = [e for e in self.ternary[table] if e is not None and e.keys == tkeys and prio in (None, e.priority)]
            if not hits:
                raise missing
            if len(hits) > 1:
                raise ScriptError(first, f"ambiguous delete: {len(hits)} {table} entries have these keys; "
                                  "give the priority")
            self.ternary[table][hits[0].index] = None
        elif table in self.src:
            if tuple(keys) not in self.src[table]:
                raise missing
            self.src[table].remove(tuple(keys))
        elif table == EPOCH:
            lb_id, (value, plen) = keys
            hit = [e for e in self.epoch if (e.lb_id, e.value, e.plen) == (lb_id, value, plen)]
            if not hit:
                raise missing
            self.epoch.remove(hit[0])
        elif table == CALENDAR:
            if tuple(keys) not in self.calendar:
                raise missing
            del self.calendar[tuple(keys)]
        else:
            lb_id, et, mid = keys
            self._member_family(cmd, et)
            if self.member_lookup(lb_id, et, mid) is None:
                raise missing
            del self.member[(lb_id, 0 if et == ETH_IPV4 else 1, mid & (MEMBERS_PER_FAMILY - 1))]


# ---------------------------------------------------------------------------------------------
# run_traffic segmentation (the same rule as docs/lb.md)
# ---------------------------------------------------------------------------------------------

def plan_segments(commands, n_packets):
    """Apply the whole script (every refusal before traffic) and cut the input into run_traffic segments,
    each with the tables its packets see (the seed's rule, docs/lb.md)."""
    return seed_tables.plan_segments(commands, n_packets, Tables)


def load_script(path):
    with open(path, encoding="utf-8") as f:
        return parse_script(f.read(), path)
