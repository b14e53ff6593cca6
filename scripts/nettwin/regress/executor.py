"""Runs a list of Runs, serially or on N worker threads (each run is a few subprocesses), and reports each one
as it finishes. Results come back in the order of the list, whatever order they finished in."""
import json
import os
import subprocess
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

from nettwin.regress.run import Result, quote, read_json

GENERATOR_TIMEOUT = 600  # seconds per vector generator command
TAIL_LINES = 14  # of a failing command's output, in the progress stream and the reports


def run_command(cmd, log, timeout=None):
    """(exit code, combined output, seconds); never raises for a command that cannot run or hangs."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                           timeout=timeout)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc, out = 124, out + "\nTIMEOUT: killed after %d s" % timeout
    except OSError as e:  # e.g. the binary is missing or being relinked
        rc, out = 127, "cannot run %s: %s" % (cmd[0], e)
    log.write("$ %s\n%s(exit %d)\n" % (quote(cmd), out if out.endswith("\n") or not out else out + "\n", rc))
    return rc, out, time.time() - t0


def tail(text, n=TAIL_LINES):
    lines = text.strip().splitlines()
    return "\n".join(lines[-n:])


class Log:
    """regress.log: every command and its output, whole (a command's lines are never interleaved with
    another's)."""

    def __init__(self, path):
        self._f = open(path, "w")
        self._lock = threading.Lock()

    def write(self, text):
        with self._lock:
            self._f.write(text)
            self._f.flush()

    def close(self):
        self._f.close()


class Vectors:
    """Makes each shared Vector once; concurrent runs that need the same one wait for the first."""

    def __init__(self, log):
        self._log = log
        self._mutex = threading.Lock()
        self._locks = {}
        self._done = {}

    def prepare(self, vec):
        """None if the vector is ready, else the failing generator's output."""
        with self._mutex:
            lock = self._locks.setdefault(vec.key, threading.Lock())
        with lock:
            if vec.key not in self._done:
                err = None
                for cmd in vec.commands:
                    rc, out, _ = run_command(cmd, self._log, GENERATOR_TIMEOUT)
                    if rc != 0:
                        err = "generator exit %d: %s\n%s" % (rc, quote(cmd), tail(out))
                        break
                self._done[vec.key] = err
            return self._done[vec.key]


def execute(run, vectors, log, want_data=False):
    """Generates the run's vector if needed, runs it and its checks; a Result, never an exception."""
    if run.vector:
        err = vectors.prepare(run.vector)
        if err:
            return Result(run, False, 0.0, "generate", err, run.replay("generate"))
    t0 = time.time()
    for f in run.outputs + ([run.stats] if run.stats else []):
        if os.path.exists(f):
            os.remove(f)
    rc, out, _ = run_command(run.command, log, run.timeout)
    if run.stats:
        stats = read_json(run.stats)
    else:
        stats = read_json_text(out)
    if rc != 0:
        return Result(run, False, time.time() - t0, "run", "nettwin exit %d:\n%s" % (rc, tail(out)),
                      run.replay("run"), stats)
    why = run.accept(stats) if run.accept else (None if stats else "no readable stats JSON")
    if why:
        return Result(run, False, time.time() - t0, "stats", why, run.replay("stats"), stats)
    for name, chk in run.checks:
        rc, cout, _ = run_command(chk, log, run.timeout)
        if rc != 0:
            return Result(run, False, time.time() - t0, name, "%s exit %d:\n%s" % (name, rc, tail(cout)),
                          run.replay(name), stats)
    res = Result(run, True, time.time() - t0, stats=stats)
    if want_data and run.extract:
        try:
            res.data = run.extract(run, stats)
        except Exception as e:  # a plot's input is not worth failing a passed run for; say why it is missing
            res.data = {"error": "%s: %s" % (type(e).__name__, e)}
    return res


def read_json_text(text):
    """The JSON object a command printed (after any progress text), or {}."""
    start = text.find("{")
    try:
        return json.loads(text[start:]) if start >= 0 else {}
    except ValueError:
        return {}


class Progress:
    """One line per finished run with a [k/N] count; a failure's report and replay command right under it."""

    def __init__(self, total, stream=sys.stdout):
        self.total, self.done, self.stream = total, 0, stream
        self._lock = threading.Lock()
        self._w = len(str(total))

    def __call__(self, res):
        r = res.run
        packets, cycles = res.measure()
        with self._lock:
            self.done += 1
            line = "[%*d/%d] %-8s %-12s %4s %-8s %-10s %8s pkts %10s cyc  %-4s %6.1fs" % (
                self._w, self.done, self.total, r.block, r.scenario, "-" if r.seed is None else r.seed,
                r.engine, r.mode, packets, cycles, res.status, res.seconds)
            out = [line]
            if not res.ok:
                out.append("    FAILED at %s: %s" % (res.stage, r.name))
                out += ["    | " + ln for ln in res.report.splitlines()]
                out.append("    replay: " + res.replay)
            self.stream.write("\n".join(out) + "\n")
            self.stream.flush()


def execute_all(runs, jobs, log, on_done, want_data=False):
    """Every run, on `jobs` threads; results in the order of `runs`."""
    vectors = Vectors(log)

    def one(run):
        try:
            res = execute(run, vectors, log, want_data)
        except Exception:  # a bug of the runner or a block's runs.py: this run fails, the others go on
            res = Result(run, False, 0.0, "runner", traceback.format_exc(), run.replay())
        on_done(res)
        return res

    if jobs <= 1:
        return [one(r) for r in runs]
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = [pool.submit(one, r) for r in runs]
        return [f.result() for f in futures]
    finally:
        # normally all done; on Ctrl-C, start nothing new (the running commands got the SIGINT too)
        pool.shutdown(wait=False, cancel_futures=True)
