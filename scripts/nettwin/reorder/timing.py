#!/usr/bin/python3
"""What the ConWeave reorder block may hold, drop and reorder, and when it may release, computed by
nettwin/reorder/check.py from the traffic alone (arrival times, the CW fields, the configuration) and the documented
rules (docs/reorder.md), never from the block's stats - library, no command line.

  reference(conf, arrivals) -> {flow key: [Window]}; every reroute's hold window per flow by the
      documented data rule (tail_seen / tail_next, d = 0, 1, 2, 3, TAIL first) with an unbounded flow
      table and queue pool, and the CLEAR each reroute owes (Window.clear_psn / clear_epoch / clear_at).
      Window: open (arrival of the first held packet; None when nothing is held: TAIL first, or TAIL
      last with no rerouted packet before it), close (TAIL arrival, or the resume deadline
      TAIL_TX_TSTAMP + owd_old + margin_us, or first arrival + default_hold_us without an old-path
      sample), by ("tail" | "timeout"), held [(psn, arrival, cells)].
  PortBound(frames, bp) -> bound(t0, beats, t1): the latest a frame that became ready at t0 may leave
      the port when it was not held: its own beats + the fixed latency + every beat the port sent in
      between (2x for load bubbles), slowed by the backpressure fraction bp, + SLACK_US;
      latest_release(ready, beats, t1): the same for a packet a resume timer released at `ready`
      (timer_release_ready: the documented round-robin scan, no SLACK_US).
  held_bytes_bound(windows) -> [(t, cells)] the most cells held at once if every hold window held all
      its packets; buffer_full drops are possible only where this exceeds the limit.
  live_sharing(flows, arrivals, conf) -> flows that shared a flow-table entry with another live flow.
  late_after_timeout(windows, per_flow) -> {(key, psn): {epoch}}: old-path packets that arrived at or
      after a reroute's resume deadline, which the epoch the reroute went to may legally overtake.

Time is in microseconds (float, from the nanosecond pcaps); the block's clock is the arrival time in
integer us mod 2^16, like TX_TSTAMP.
"""
import bisect
import math

CYCLE_US = 1 / 250          # the block's clock (250 MHz, `nettwin reorder --clock-mhz` default)
FIXED_CYCLES = 6            # last beat in -> first beat out (docs/reorder-microarchitecture.md; 5 before branch reorder16)
SLACK_US = 1.0              # the wrongly held packets of issue 13 waited tens of us (not for timer releases)
TIMER_OUT_CYCLES = 3        # timer release -> first beat out, output idle (docs/reorder-microarchitecture.md)
# The decision is two cycles since branch reorder17 (D1, D2; docs/reorder-microarchitecture.md "Decision in two
# cycles"): a queue is taken one cycle later after its packet's last beat than with the one-cycle D. Where the
# packet that opens a window is decided after the clock read the deadline (a window opened within 1 us of its
# deadline or after it: taken with the deadline already passed), the timer can first see the queue that one
# cycle later, so the timer bound of such a window has this one cycle more (check.py release_ready). Nothing
# else of the bound changes.
OPEN_LATE_CYCLES = 1
BP_TAIL = 1e-9              # a beat may wait longer than bp_tail_cycles(bp) under random backpressure with this chance


def cells(nbytes):
    return (nbytes + 63) // 64


class Window:
    def __init__(self, epoch):
        self.epoch = epoch            # the epoch the reroute went to (what its CLEAR carries)
        self.open = None
        self.close = None
        self.by = None
        self.deadline = None
        self.held = []                # (psn, arrival, cells)
        self.tail_psn = self.tail_at = None
        self.clear_psn = self.clear_at = None   # the CLEAR mirrors this packet, not before clear_at
        self.tail_first = False

    def holding(self):
        return self.open is not None and self.by is None


def _deadline(now, cw, owd_old, conf):
    if owd_old is None:
        return now + conf["default_hold_us"]
    now16 = int(now) & 0xFFFF
    ahead = (cw.tail_tx_ts + owd_old + conf["margin_us"] - now16) & 0xFFFF
    return int(now) + (ahead if ahead < 0x8000 else 0)


def reference(conf, per_flow, tail_won=frozenset()):
    """per_flow: {key: [(t_us, cw, psn, nic_len)] in arrival order} -> {key: [Window]}, one Window per
    reroute (by the packet that starts it, or by a TAIL that came first), in arrival order.
    tail_won: windows {(key, open time)} whose TAIL, arriving in the deadline's microsecond, won the race
    with the timer (docs/reorder.md "Decision (deadline edge)"): they stay open through that microsecond
    and their TAIL closes them; see tail_races()."""
    out = {}
    for key, pkts in per_flow.items():
        wins = []
        epoch, tail_seen, tail_next = None, True, False
        owd_cur = owd_old = None
        win = None          # the current reroute's window
        told = None         # the reroute a TAIL-first CLEAR announced (epoch + 1)
        for t, cw, psn, nlen in pkts:
            if win is not None and win.holding() and t >= win.deadline and \
                    not ((key, win.open) in tail_won and t < win.deadline + 1):
                win.close = win.clear_at = win.deadline
                win.by = "timeout"
                tail_seen = True    # after a timeout the flow stops waiting
            if epoch is None:
                epoch, tail_seen = cw.epoch, not cw.rerouted
            owd = (int(t) - cw.tx_ts) & 0xFFFF
            d = (cw.epoch - epoch) & 3
            holding = win is not None and win.holding()
            if d in (1, 2):
                owd_old = owd_cur if d == 1 else None   # after a jump the old path was never sampled
                owd_cur, epoch = owd, cw.epoch
                if cw.rerouted:
                    tail_seen = d == 1 and tail_next
                    if not holding:
                        if told is not None and told.epoch == epoch and tail_seen:
                            win = told
                        else:
                            win = Window(epoch)
                            wins.append(win)
                told = None
                tail_next = False
            elif d == 0:
                owd_cur = owd if owd_cur is None else max(owd_cur, owd)
            else:
                owd_old = owd if owd_old is None else max(owd_old, owd)
                if cw.tail and not tail_seen:
                    tail_seen = True
                    if win is not None:
                        win.tail_psn, win.tail_at = psn, t
                        if win.holding():
                            win.close, win.by = t, "tail"
                        win.clear_psn, win.clear_at = psn, t
            hold = d != 3 and ((cw.rerouted and not tail_seen) or holding)
            if cw.tail and d != 3 and not tail_next:     # TAIL first: CLEAR now for the next epoch
                tail_next = True
                told = Window((epoch + 1) & 3)
                told.tail_first = True
                told.tail_psn, told.tail_at, told.clear_psn, told.clear_at = psn, t, psn, t
                wins.append(told)
            if hold:
                if not holding:
                    if win is None or win.open is not None or win.epoch != epoch:
                        win = Window(epoch)
                        wins.append(win)
                    win.open, win.deadline = t, _deadline(t, cw, owd_old, conf)
                    win.clear_psn = psn
                    if win.deadline <= t:       # already passed: released at once, the flow stops waiting
                        win.close, win.by, win.clear_at = t, "timeout", t
                        tail_seen = True
                win.held.append((psn, t, cells(nlen)))
        if win is not None and win.holding():
            win.close = win.clear_at = win.deadline
            win.by = "timeout"
        out[key] = [w for w in wins if w.open is not None or w.clear_psn is not None]
    return out


class PortBound:
    """Departures of one output port: [(t_us, nbytes)] sorted by time."""

    def __init__(self, frames, bp):
        self.t = [t for t, _ in frames]
        self.pre = [0]
        for _, n in frames:
            self.pre.append(self.pre[-1] + cells(n) + 1)
        self.scale = 1 / max(0.05, 1 - bp)
        self.tail = bp_tail_cycles(bp)

    def latest(self, ready, beats, left):
        """The latest a frame ready at `ready` may leave at `left` if it waited for nothing but the port."""
        i, j = bisect.bisect_left(self.t, ready), bisect.bisect_left(self.t, left)
        busy = max(0, self.pre[j] - self.pre[i] - (beats + 1))
        return ready + (beats + FIXED_CYCLES + 2 * busy) * CYCLE_US * self.scale + SLACK_US

    def latest_release(self, ready, beats, left):
        """The latest a packet a timer release at `ready` (timer_release_ready) may leave at `left`: the
        documented TIMER_OUT_CYCLES + every beat the port sent in between, the frame it was sending at
        `ready` included (2x for load bubbles), slowed by
        the backpressure fraction, + the backpressure tail (bp_tail_cycles). No SLACK_US: without
        backpressure a release one cycle later than the documented timer allows fails (issue 26 item 5)."""
        i, j = bisect.bisect_left(self.t, ready), bisect.bisect_left(self.t, left)
        if i and self.t[i - 1] + (self.pre[i] - self.pre[i - 1]) * CYCLE_US > ready:
            i -= 1      # the frame the port was sending at `ready` (with its load cycle)
        busy = max(0, self.pre[j] - self.pre[i])
        return ready + (TIMER_OUT_CYCLES + 2 * busy * self.scale + self.tail) * CYCLE_US


def bp_tail_cycles(bp):
    """Cycles one beat may wait for a randomly backpressured port (ready with probability 1 - bp each cycle)
    beyond PortBound's scaled beats: the run of not-ready cycles that is longer with probability < BP_TAIL.
    0 without backpressure."""
    if bp <= 0:
        return 0
    return math.ceil(math.log(BP_TAIL) / math.log(min(bp, 0.95)))


def timer_release_ready(deadline_us, t0_us, queues, rounds=1):
    """The latest cycle (as time, us) the resume timer can release a queue whose deadline is deadline_us
    (the block's integer-microsecond clock), derived from the documented timer (docs/reorder.md "Resume
    deadline", docs/reorder-microarchitecture.md stage T): the clock is t0 + cycle / 250 MHz in us, so it
    first reads the deadline at the first cycle at or after deadline_us; the timer compares one queue per
    cycle, round robin over `queues`, so it visits the queue within `queues` cycles (queues - 1 after that
    first cycle); each visit in which the decision stage touches the same queue is skipped (`rounds` - 1
    such visits). Output-FIFO room is the port's business (PortBound.latest_release)."""
    k = math.ceil(round((deadline_us - t0_us) / CYCLE_US, 6))
    first = t0_us + max(0, k) * CYCLE_US
    return first + (rounds * queues - 1) * CYCLE_US


def held_bytes_bound(all_windows):
    ev = []
    for wins in all_windows.values():
        for w in wins:
            for _, t, c in w.held:
                ev.append((t, c))
                ev.append((w.close, -c))
    ev.sort(key=lambda e: (e[0], e[1]))
    now, out = 0, []
    for t, c in ev:
        now += c
        out.append((t, now))
    return out


def live_sharing(first_last, slot, idle_us):
    """first_last: {key: (first arrival, last arrival)}; slot: {key: flow-table index}. Flows whose
    entry another flow used while both were live (an entry is free to take idle_us after its flow's
    last packet; the block's 16-bit idle compare can only make it take longer)."""
    by = {}
    for k in first_last:
        by.setdefault(slot[k], []).append(k)
    res = set()
    for ks in by.values():
        for a in ks:
            for b in ks:
                if a != b and first_last[a][0] <= first_last[b][1] + idle_us \
                        and first_last[b][0] <= first_last[a][1] + idle_us:
                    res.add(a)
    return res


def tail_races(all_windows, per_flow):
    """Windows closed by timeout whose TAIL (the epoch before the window's, before the flow's next reroute)
    arrived in the deadline's own microsecond: {(key, open time): TAIL PSN}. There the block's timer scan
    (one queue per cycle, and only with room in the output FIFO) and the TAIL race, and either may release
    the queue (docs/reorder.md "Decision (deadline edge)")."""
    races = {}
    for key, wins in all_windows.items():
        for w in wins:
            if w.by != "timeout" or w.open is None or w.deadline is None:
                continue
            for t, cw, psn, _ in per_flow[key]:
                if t < w.open:
                    continue
                d = (w.epoch - cw.epoch) & 3
                if d == 3 or t >= w.deadline + 1:
                    break
                if d == 1 and cw.tail and t >= w.deadline:
                    races[(key, w.open)] = psn
                    break
    return races


def late_after_timeout(all_windows, per_flow):
    """Old-path packets (an epoch before the reroute's) that arrived at or after the deadline of a
    reroute closed by timeout and before the flow's next reroute began: docs/reorder.md "After a
    timeout" forwards them at once, behind the packets the timeout released, so packets of the epoch
    the reroute went to (the window's) may be delivered before them. The same `t >= deadline` as
    reference() (a TAIL arriving in the deadline's microsecond is late, like the block's timer)."""
    late = {}
    for key, wins in all_windows.items():
        for w in wins:
            if w.by != "timeout":
                continue
            for t, cw, psn, _ in per_flow[key]:
                if t < w.close:
                    continue
                d = (w.epoch - cw.epoch) & 3
                if d == 3:          # the next reroute began: nothing after it is this reroute's
                    break
                if d in (1, 2):
                    late.setdefault((key, psn), set()).add(w.epoch)
    return late
