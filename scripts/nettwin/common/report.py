"""The one checker report of every block (issue 28 item 3): lb, udplb, rdma, reorder, reroute, cwloop, re, vnic
and naa print and exit the same way.

Mismatches are collected per check (a short name: "bytes", "stats", "timing", ...); at the end the first
`show` of each check are printed, so a broken run names every kind of failure once instead of the same one a
thousand times:

    MISMATCH [check] (K in total) first: msg
        then: msg                                   (up to `show` messages per check)
    <tool>: FAIL: N mismatches (check: K, ...)[; detail]          exit 1
    <tool>: PASS: <what was checked>                              exit 0
    <tool>: unusable input: <why>       (on stderr)               exit 2

A checker whose later checks depend on the earlier ones (re, lb's plan checks, the feedback loop) raises Fail at
the first failed check and reports it the same way (one MISMATCH line, then FAIL).

<tool> is the checker's one name: its module's name with `_` (nettwin.reorder.check -> reorder_check; lb_check,
rdma_check, reorder_check, reroute_check, cwloop_check, re_check, vnic_check, naa_check; lb_plan_check,
lb_udplb_check, lb_udplb_plan_check, lb_feedback, re_loop, vnic_linux_ref). The regression reads the exit code and
shows the tail of this output; the shell tests grep the `<tool>: PASS` / `<tool>: FAIL` line and the messages.

    rep = Report("lb_check")
    rep.fail("bytes", "output packet 3: field ip.ttl ...")
    return rep.finish(f"{n} packets byte-exact")
"""
import sys


class Report:
    """Collects mismatches per check; prints the first `show` of each in full, then counts."""

    def __init__(self, tool, show=1):
        self.tool = tool
        self.counts, self.msgs, self.show = {}, {}, max(1, show)

    def fail(self, check, msg):
        self.counts[check] = self.counts.get(check, 0) + 1
        m = self.msgs.setdefault(check, [])
        if len(m) < self.show:
            m.append(msg)

    def ok(self):
        return not self.counts

    def total(self):
        return sum(self.counts.values())

    def lines(self):
        """The MISMATCH lines print() writes (for tests and for a caller that embeds this report)."""
        out = []
        for check, msgs in self.msgs.items():
            out.append(f"MISMATCH [{check}] ({self.counts[check]} in total) first: {msgs[0]}")
            out += [f"    then: {m}" for m in msgs[1:]]
        return out

    def print(self):
        for line in self.lines():
            print(line)

    def fail_line(self, detail=None):
        kinds = ", ".join(f"{k}: {n}" for k, n in self.counts.items())
        return (f"{self.tool}: FAIL: {self.total()} mismatch{'es' if self.total() != 1 else ''} ({kinds})"
                + (f"; {detail}" if detail else ""))

    def finish(self, passed, failed=None):
        """Print the report and return the exit code: on a mismatch the MISMATCH lines and `<tool>: FAIL: ...`
        (with `failed`, a string or a callable giving one, appended), exit 1; else `<tool>: PASS: passed`
        (a string or a callable: computed only on a pass), exit 0."""
        if not self.ok():
            self.print()
            print(self.fail_line(failed() if callable(failed) else failed))
            return 1
        print(f"{self.tool}: PASS: {passed() if callable(passed) else passed}")
        return 0

    def stopped(self, fail):
        """A Fail that stopped the checker: filed under its check, then the FAIL verdict (exit 1)."""
        self.fail(fail.check, str(fail))
        return self.finish("")

    def unusable(self, why):
        return unusable(self.tool, why)


class Fail(Exception):
    """A failed check after which a checker cannot go on (the later checks assume it held): re, lb's plan checks
    and the feedback loop stop at the first. `check` names it in the MISMATCH line; a caller that knows the
    phase may pass it instead (`Report.fail(phase, str(e))`)."""

    def __init__(self, msg, check="check"):
        super().__init__(msg)
        self.check = check


def unusable(tool, why):
    """Unusable input (missing or unreadable file, bad config, bad JSON): one line on stderr, exit code 2."""
    print(f"{tool}: unusable input: {why}", file=sys.stderr)
    return 2
