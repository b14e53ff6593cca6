"""Tables script (runsim.txt) parser and table state of the EJFAT load balancer, after docs/lb.md.

This is the control-plane half of the Python reference (nettwin.lb.ref holds the data plane).  It is
written from docs/lb.md only ("Lookups" and "Control-plane script"), independently of the C++ model.

    commands = parse_script(text, filename)        # ScriptError on any syntax error
    for seg in plan_segments(commands, n_packets): # ScriptError on any table error, before traffic
        seg.start, seg.end, seg.tables             # packets [start, end) see seg.tables

Every error is a ScriptError whose str() is `file:line: token 'tok': message`, as docs/lb.md asks.
"""
import copy
import ipaddress
import re
from dataclasses import dataclass, field
from typing import List, Optional

COMMANDS = ("table_add", "table_delete", "table_clear", "run_traffic")
ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
LB_PORT = 0x4C42

FILTER = "dst_filter_table"
EPOCH = "epoch_assign_table"
CALENDAR = "load_balance_calendar_table"
MEMBER = "member_info_lookup_table"

# Per table: key fields (name, width) and per action the parameter fields (name, width).
# The epoch table's single key is ternary; all others are exact.
SCHEMA = {
    FILTER: {
        "keys": [("mac_da", 48), ("ethertype", 16), ("ip_dst", 128), ("udp_dst", 16)],
        "actions": {"NoAction": [], "drop": []},
    },
    EPOCH: {
        "keys": [("tick", 64)],
        "actions": {"do_assign_epoch": [("epoch", 32)], "drop": []},
    },
    CALENDAR: {
        "keys": [("epoch", 32), ("slot", 9)],
        "actions": {"do_assign_member": [("member_id", 16)], "drop": []},
    },
    MEMBER: {
        "keys": [("ethertype", 16), ("member_id", 16)],
        "actions": {
            "do_ipv4_member_rewrite": [("mac_da", 48), ("ip_dst", 32), ("udp_dst", 16)],
            "do_ipv6_member_rewrite": [("mac_da", 48), ("ip_dst", 128), ("udp_dst", 16)],
            "drop": [],
        },
    },
}
FILTER_SIZE = 32
EPOCH_SIZE = 128
CALENDAR_EPOCHS = 4          # 2048 entries = 4 epochs x 512 slots
CALENDAR_SLOTS = 512
MEMBER_SLOTS_PER_FAMILY = 512


class ScriptError(Exception):
    """A tables-script error, formatted `file:line: token 'tok': message`."""

    def __init__(self, tok, message):
        self.tok = tok
        self.message = message
        super().__init__(f"{tok.file}:{tok.line}: token '{tok.text}': {message}")


@dataclass(frozen=True)
class Token:
    text: str
    file: str
    line: int


# ---------------------------------------------------------------------------------------------
# Lexing and value syntax
# ---------------------------------------------------------------------------------------------

def tokenize(text, filename):
    """White-space separated tokens with their line numbers; '#' comments run to end of line."""
    toks = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0]
        toks.extend(Token(t, filename, lineno) for t in line.split())
    return toks


_DEC = re.compile(r"[0-9]+\Z")
_HEX = re.compile(r"0[xX][0-9a-fA-F]+\Z")
_MAC = re.compile(r"[0-9a-fA-F]{1,2}(:[0-9a-fA-F]{1,2}){5}\Z")
_DOTTED = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}\Z")


def number(tok):
    """docs/lb.md: numbers are `0x` hex or decimal."""
    t = tok.text
    if _HEX.match(t):
        return int(t, 16)
    if _DEC.match(t):
        return int(t, 10)
    raise ScriptError(tok, "not a number (expected 0x hex or decimal)")


def key_value(tok):
    """A key: a number, or a dotted IPv4 address, a colon-separated MAC, or an IPv6 address."""
    t = tok.text
    if _HEX.match(t) or _DEC.match(t):
        return number(tok)
    if _DOTTED.match(t):
        try:
            return int(ipaddress.IPv4Address(t))
        except ValueError:
            raise ScriptError(tok, "bad IPv4 address") from None
    if _MAC.match(t):   # checked before IPv6: six groups without '::' is never a valid IPv6 address
        return int("".join(g.zfill(2) for g in t.split(":")), 16)
    if ":" in t:
        try:
            return int(ipaddress.IPv6Address(t))
        except ValueError:
            raise ScriptError(tok, "bad IPv6 address") from None
    raise ScriptError(tok, "not a number or address")


def check_width(tok, value, width, what):
    if value >> width:
        raise ScriptError(tok, f"value too wide for {width}-bit {what}")
    return value


def ternary_key(tok, width=64):
    """`value/prefix_len` (top prefix_len bits), `value&&&mask`, or a plain value (exact)."""
    full = (1 << width) - 1
    t = tok.text
    if "&&&" in t:
        v, m = t.split("&&&", 1)
        value = check_width(tok, key_value(Token(v, tok.file, tok.line)), width, "tick value")
        mask = check_width(tok, number(Token(m, tok.file, tok.line)), width, "tick mask")
        return value, mask
    if "/" in t:
        v, p = t.split("/", 1)
        value = check_width(tok, key_value(Token(v, tok.file, tok.line)), width, "tick value")
        plen = number(Token(p, tok.file, tok.line))
        if plen > width:
            raise ScriptError(tok, f"prefix length {plen} > {width}")
        mask = full ^ ((1 << (width - plen)) - 1)
        return value, mask
    return check_width(tok, key_value(tok), width, "tick value"), full


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------

@dataclass
class Command:
    kind: str                     # one of COMMANDS
    tok: Token                    # the command token (for error messages)
    table: Optional[str] = None
    action: Optional[str] = None
    key_toks: List[Token] = field(default_factory=list)
    param_toks: List[Token] = field(default_factory=list)
    prio_tok: Optional[Token] = None
    count: Optional[int] = None   # run_traffic: packet count, None = all remaining


def parse_script(text, filename="<tables>"):
    """Split the token stream into commands (syntax only; values are checked when applied)."""
    return split_commands(text, filename, SCHEMA, _take_params, _delete_priority)


def _take_params(cmd, toks, i):
    """The seed's params: exactly the action's count, then a priority for epoch_assign_table only."""
    n = len(toks)
    nparams = len(SCHEMA[cmd.table]["actions"][cmd.action])
    for _ in range(nparams):
        if i >= n or toks[i].text in COMMANDS:
            raise ScriptError(toks[min(i, n - 1)], f"wrong number of params: {cmd.action} takes {nparams}")
        cmd.param_toks.append(toks[i])
        i += 1
    if i < n and toks[i].text not in COMMANDS:
        if cmd.table != EPOCH:
            raise ScriptError(toks[i], f"wrong number of params: {cmd.action} takes "
                              f"{nparams} (priority is only accepted for {EPOCH})")
        cmd.prio_tok = toks[i]
        i += 1
    return i


def _delete_priority(cmd):
    if cmd.table == EPOCH and len(cmd.key_toks) == 2:
        cmd.prio_tok = cmd.key_toks.pop()


def split_commands(text, filename, schema, take_params, delete_priority):
    """The command grammar shared by the seed's and the udplb program's scripts (docs/lb.md "Control-plane
    script"): table_add / table_delete / table_clear / run_traffic with `#` comments. `schema` gives the
    tables and their actions; take_params(cmd, toks, i) consumes a table_add's tokens after '=>' (params and
    priority) and returns the next index; delete_priority(cmd) moves a table_delete's trailing priority
    from its keys to cmd.prio_tok."""
    toks = tokenize(text, filename)
    cmds = []
    i = 0
    n = len(toks)

    def is_cmd(j):
        return j < n and toks[j].text in COMMANDS

    def need(j, what):
        if j >= n:
            raise ScriptError(toks[-1], f"script ends where {what} was expected")
        if toks[j].text in COMMANDS:
            raise ScriptError(toks[j], f"expected {what}")
        return toks[j]

    def table_name(j):
        t = need(j, "a table name")
        if t.text not in schema:
            raise ScriptError(t, "unknown table")
        return t.text

    while i < n:
        t = toks[i]
        if t.text not in COMMANDS:
            raise ScriptError(t, "unknown command")
        cmd = Command(kind=t.text, tok=t)
        i += 1
        if cmd.kind == "table_add":
            cmd.table = table_name(i)
            a = need(i + 1, "an action name")
            if a.text not in schema[cmd.table]["actions"]:
                raise ScriptError(a, f"unknown action for {cmd.table}")
            cmd.action = a.text
            i += 2
            while i < n and toks[i].text != "=>":
                if toks[i].text in COMMANDS:
                    raise ScriptError(toks[i], "missing '=>' after the keys")
                cmd.key_toks.append(toks[i])
                i += 1
            if i >= n:
                raise ScriptError(toks[-1], "missing '=>' after the keys")
            i = take_params(cmd, toks, i + 1)
        elif cmd.kind == "table_delete":
            cmd.table = table_name(i)
            i += 1
            while i < n and not is_cmd(i):
                cmd.key_toks.append(toks[i])
                i += 1
            delete_priority(cmd)
        elif cmd.kind == "table_clear":
            cmd.table = table_name(i)
            i += 1
        else:  # run_traffic [name|count]
            if i < n and not is_cmd(i):
                arg = toks[i]
                i += 1
                if _HEX.match(arg.text) or _DEC.match(arg.text):
                    cmd.count = number(arg)
        if i < n and not is_cmd(i):
            raise ScriptError(toks[i], "unknown command (or too many keys/params)")
        cmds.append(cmd)
    return cmds


# ---------------------------------------------------------------------------------------------
# Table state
# ---------------------------------------------------------------------------------------------

@dataclass
class EpochEntry:
    value: int
    mask: int
    priority: int
    action: str
    epoch: Optional[int]


@dataclass
class MemberEntry:
    ethertype: int
    member_id: int
    action: str
    mac_da: Optional[int] = None
    ip_dst: Optional[int] = None
    udp_dst: Optional[int] = None


class Tables:
    """State of the four tables; apply() executes one table command, the lookups are the data
    plane's view (None = miss)."""

    def __init__(self):
        self.filter = {}                          # (mac, ethertype, ip128, port) -> action
        self.epoch = [None] * EPOCH_SIZE          # slot -> EpochEntry
        self.calendar = {}                        # (epoch, slot) -> (action, member_id)
        self.member = [None] * (2 * MEMBER_SLOTS_PER_FAMILY)  # direct-mapped -> MemberEntry

    def copy(self):
        return copy.deepcopy(self)

    # --- lookups -----------------------------------------------------------------------------
    def filter_lookup(self, mac, ethertype, ip128, port):
        return self.filter.get((mac, ethertype, ip128, port))

    def epoch_lookup(self, tick):
        """Lowest priority value wins; equal priorities: lowest slot index."""
        best = None
        for e in self.epoch:
            if e is not None and (tick & e.mask) == (e.value & e.mask):
                if best is None or e.priority < best.priority:
                    best = e
        return best

    def calendar_lookup(self, epoch, slot):
        return self.calendar.get((epoch, slot))

    @staticmethod
    def member_slot(ethertype, member_id):
        return (ethertype == ETH_IPV6) * MEMBER_SLOTS_PER_FAMILY + member_id % MEMBER_SLOTS_PER_FAMILY

    def member_lookup(self, ethertype, member_id):
        if ethertype not in (ETH_IPV4, ETH_IPV6):
            return None
        e = self.member[self.member_slot(ethertype, member_id)]
        return e if e is not None and e.member_id == member_id else None

    def calendar_epochs(self):
        return sorted({ep for ep, _ in self.calendar})

    # --- commands ----------------------------------------------------------------------------
    def apply(self, cmd):
        if cmd.kind == "table_clear":
            self._clear(cmd.table)
        elif cmd.kind == "table_add":
            getattr(self, "_add_" + cmd.table)(cmd)
        elif cmd.kind == "table_delete":
            getattr(self, "_del_" + cmd.table)(cmd)

    def _clear(self, table):
        if table == FILTER:
            self.filter = {}
        elif table == EPOCH:
            self.epoch = [None] * EPOCH_SIZE
        elif table == CALENDAR:
            self.calendar = {}
        else:
            self.member = [None] * (2 * MEMBER_SLOTS_PER_FAMILY)

    @staticmethod
    def _params(cmd):
        spec = SCHEMA[cmd.table]["actions"][cmd.action]
        return [check_width(t, key_value(t), w, name) for t, (name, w) in zip(cmd.param_toks, spec)]

    @staticmethod
    def _exact_keys(cmd, toks, nkeys_allowed):
        keys = SCHEMA[cmd.table]["keys"]
        if len(toks) not in nkeys_allowed:
            bad = toks[-1] if toks else cmd.tok
            want = " or ".join(str(k) for k in nkeys_allowed)
            raise ScriptError(bad, f"wrong number of keys for {cmd.table}: {len(toks)} (expected {want})")
        vals = []
        for t, (name, w) in zip(toks, keys):
            v = key_value(t)
            if cmd.table == CALENDAR and name == "slot" and v > 0x1FF:
                raise ScriptError(t, "calendar slot > 0x1FF")
            vals.append(check_width(t, v, w, name))
        return vals

    # dst_filter_table: 3 keys (port implied 0x4C42) or 4 keys
    def _filter_key(self, cmd):
        k = self._exact_keys(cmd, cmd.key_toks, (3, 4))
        if len(k) == 3:
            k.append(LB_PORT)
        return tuple(k)

    def _add_dst_filter_table(self, cmd):
        key = self._filter_key(cmd)
        self._params(cmd)
        if key in self.filter:
            raise ScriptError(cmd.key_toks[0], "duplicate key in dst_filter_table")
        if len(self.filter) >= FILTER_SIZE:
            raise ScriptError(cmd.tok, f"dst_filter_table full ({FILTER_SIZE} entries)")
        self.filter[key] = cmd.action

    def _del_dst_filter_table(self, cmd):
        key = self._filter_key(cmd)
        if key not in self.filter:
            raise ScriptError(cmd.key_toks[0], "delete of a missing entry in dst_filter_table")
        del self.filter[key]

    # epoch_assign_table: ternary tick + priority; entries identified by (value&mask, mask, prio)
    def _epoch_key(self, cmd):
        if len(cmd.key_toks) != 1:
            bad = cmd.key_toks[-1] if cmd.key_toks else cmd.tok
            raise ScriptError(bad, f"wrong number of keys for {EPOCH}: {len(cmd.key_toks)} (expected 1)")
        value, mask = ternary_key(cmd.key_toks[0])
        prio = None
        if cmd.prio_tok is not None:
            prio = check_width(cmd.prio_tok, number(cmd.prio_tok), 16, "priority")
        return value & mask, mask, prio

    def _add_epoch_assign_table(self, cmd):
        value, mask, prio = self._epoch_key(cmd)
        if prio is None:
            prio = 64 - bin(mask).count("1")   # longer prefix (more mask bits) wins
        params = self._params(cmd)
        for e in self.epoch:
            if e is not None and (e.value, e.mask, e.priority) == (value, mask, prio):
                raise ScriptError(cmd.key_toks[0], "duplicate key in epoch_assign_table")
        try:
            slot = self.epoch.index(None)      # lowest free slot: decides ties
        except ValueError:
            raise ScriptError(cmd.tok, f"epoch_assign_table full ({EPOCH_SIZE} entries)") from None
        self.epoch[slot] = EpochEntry(value, mask, prio, cmd.action,
                                      params[0] if params else None)

    def _del_epoch_assign_table(self, cmd):
        value, mask, prio = self._epoch_key(cmd)
        hits = [s for s, e in enumerate(self.epoch)
                if e is not None and (e.value, e.mask) == (value, mask) and prio in (None, e.priority)]
        if not hits:
            raise ScriptError(cmd.key_toks[0], "delete of a missing entry in epoch_assign_table")
        if len(hits) > 1:
            # docs/lb.md: the priority "selects one of several entries with the same value/mask";
            # without it the entry to remove is not determined, so this is an error.
            raise ScriptError(cmd.key_toks[0], f"ambiguous delete: {len(hits)} epoch_assign_table "
                              "entries have this value/mask; give the priority")
        self.epoch[hits[0]] = None

    # load_balance_calendar_table: (epoch, slot), at most 4 distinct epochs
    def _add_load_balance_calendar_table(self, cmd):
        epoch, slot = self._exact_keys(cmd, cmd.key_toks, (2,))
        params = self._params(cmd)
        if (epoch, slot) in self.calendar:
            raise ScriptError(cmd.key_toks[0], "duplicate key in load_balance_calendar_table")
        epochs = self.calendar_epochs()
        if epoch not in epochs and len(epochs) >= CALENDAR_EPOCHS:
            raise ScriptError(cmd.key_toks[0], "load_balance_calendar_table full: already "
                              f"{CALENDAR_EPOCHS} epochs ({', '.join(hex(e) for e in epochs)})")
        self.calendar[(epoch, slot)] = (cmd.action, params[0] if params else None)

    def _del_load_balance_calendar_table(self, cmd):
        key = tuple(self._exact_keys(cmd, cmd.key_toks, (2,)))
        if key not in self.calendar:
            raise ScriptError(cmd.key_toks[0], "delete of a missing entry in load_balance_calendar_table")
        del self.calendar[key]

    # member_info_lookup_table: direct-mapped on (family, id mod 512)
    def _member_key(self, cmd):
        et, mid = self._exact_keys(cmd, cmd.key_toks, (2,))
        if et not in (ETH_IPV4, ETH_IPV6):
            raise ScriptError(cmd.key_toks[0], "member EtherType is neither IPv4 (0x0800) nor IPv6 (0x86DD)")
        return et, mid

    def _add_member_info_lookup_table(self, cmd):
        et, mid = self._member_key(cmd)
        need = {"do_ipv4_member_rewrite": ETH_IPV4, "do_ipv6_member_rewrite": ETH_IPV6}.get(cmd.action)
        if need is not None and et != need:
            raise ScriptError(cmd.key_toks[0], f"member EtherType 0x{et:04x} does not match {cmd.action}")
        params = self._params(cmd)
        slot = self.member_slot(et, mid)
        old = self.member[slot]
        if old is not None and old.member_id == mid:
            raise ScriptError(cmd.key_toks[1], "duplicate key in member_info_lookup_table")
        if old is not None:
            raise ScriptError(cmd.key_toks[1], f"member slot collision: member {mid} (0x{mid:x}) and "
                              f"member {old.member_id} (0x{old.member_id:x}) are equal mod 512 "
                              f"in EtherType 0x{et:04x}")
        e = MemberEntry(et, mid, cmd.action)
        if params:
            e.mac_da, e.ip_dst, e.udp_dst = params
        self.member[slot] = e

    def _del_member_info_lookup_table(self, cmd):
        et, mid = self._member_key(cmd)
        if self.member_lookup(et, mid) is None:
            raise ScriptError(cmd.key_toks[1], "delete of a missing entry in member_info_lookup_table")
        self.member[self.member_slot(et, mid)] = None


# ---------------------------------------------------------------------------------------------
# run_traffic segmentation
# ---------------------------------------------------------------------------------------------

@dataclass
class Segment:
    start: int          # first input packet index (0-based)
    end: int            # one past the last
    tables: Tables      # a snapshot: the tables these packets are looked up in


def plan_segments(commands, n_packets, make_tables=None):
    """Apply the script and cut the input into segments, each with its own tables snapshot.

    Every command is applied (and so validated) before any segment is returned, so a table error
    anywhere in the script stops the run before traffic, as docs/lb.md requires.  Commands after a
    run_traffic take effect right after that segment's last packet; packets left when the script
    ends run with the final tables.  make_tables (default Tables) makes the empty state (udplb_tables.py
    passes its own).
    """
    tables = (make_tables or Tables)()
    segs = []
    pos = 0
    for cmd in commands:
        if cmd.kind == "run_traffic":
            end = n_packets if cmd.count is None else min(n_packets, pos + cmd.count)
            segs.append(Segment(pos, end, tables.copy()))
            pos = end
        else:
            tables.apply(cmd)
    segs.append(Segment(pos, n_packets, tables))
    return [s for s in segs if s.end > s.start] or [Segment(0, 0, tables)]


def load_script(path):
    """Read and parse a tables script file (ScriptError / OSError on failure)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return parse_script(text, path)
