"""The checkers' mismatch report (lb, udplb, rdma): mismatches are collected per check, the first N of each
printed as `MISMATCH [check] (K in total) first: msg` (then `    then: msg` lines), so a broken run names
every kind of failure once instead of the same one a thousand times.

    rep = Report(show=1)
    rep.fail("bytes", "output packet 3: field ip.ttl ...")
    rep.print(); return 0 if rep.ok() else 1
"""


class Report:
    """Collects mismatches per check; prints the first `show` of each in full, then counts."""

    def __init__(self, show=1):
        self.counts, self.msgs, self.show = {}, {}, max(1, show)

    def fail(self, check, msg):
        self.counts[check] = self.counts.get(check, 0) + 1
        m = self.msgs.setdefault(check, [])
        if len(m) < self.show:
            m.append(msg)

    def ok(self):
        return not self.counts

    def print(self):
        for check, msgs in self.msgs.items():
            print(f"MISMATCH [{check}] ({self.counts[check]} in total) first: {msgs[0]}")
            for m in msgs[1:]:
                print(f"    then: {m}")
