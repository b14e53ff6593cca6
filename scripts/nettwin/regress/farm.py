"""Slurm as the batch farm (`nettwin.regress.cli --slurm N`, `nettwin.regress.soak --slurm N`): a job array of N tasks, each writing
its shard JSON into FARM/shards/, and a job that depends on the whole array (afterany: it runs even when tasks
failed) and merges the shards into one result. The submitter then waits, printing a progress line whenever it
changes (shards done / with failures / running / pending / lost, and the work items done so far, counted from
the tasks' logs), prints the merge job's output and exits with its status: 0 all passed, 1 a run failed or a
shard is missing, 2 a farm error (sbatch refused, the merge job never ran).

FARM (the --work directory) must be on storage that the submitting host and every compute node see at the same
path, as must the checkout and its build: the tasks run `python3 -m nettwin...` (PYTHONPATH set to the
submitter's package) and BUILD/nettwin from there.

What changes from one cluster to another is passed through: --partition, --account, --time, --mem, and any
other sbatch option with --sbatch-arg (repeatable), e.g. --sbatch-arg=--qos=long --sbatch-arg=--constraint=avx2.
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import time

from nettwin.common import paths

SHARDS = "shards"
SQUEUE_PATIENCE = 600  # seconds of squeue failing in a row (controller gone) before the submitter gives up
LOGS = "logs"


def add_arguments(ap, what):
    g = ap.add_argument_group("Slurm farm (see README.md, 'Regression on a Slurm cluster')")
    g.add_argument("--slurm", type=int, default=None, metavar="N",
                   help="submit %s as a Slurm job array of N tasks plus a merge job, wait and report" % what)
    g.add_argument("--partition", help="sbatch --partition")
    g.add_argument("--account", help="sbatch --account")
    g.add_argument("--time", dest="time_limit", metavar="TIME", help="sbatch --time of each task, e.g. 2:00:00")
    g.add_argument("--mem", help="sbatch --mem of each task, e.g. 4G")
    g.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                   help="any other sbatch option, passed as is (repeatable), e.g. --sbatch-arg=--qos=long")
    g.add_argument("--no-wait", action="store_true", help="submit, print the job ids and how to follow them, exit")
    g.add_argument("--poll", type=float, default=10.0, metavar="S", help="seconds between progress checks (10)")


def sbatch_options(a):
    opts = []
    for flag, v in (("--partition", a.partition), ("--account", a.account), ("--time", a.time_limit),
                    ("--mem", a.mem)):
        if v:
            opts.append("%s=%s" % (flag, v))
    return opts + list(a.sbatch_arg)


def _script(path, lines):
    with open(path, "w") as f:
        f.write("#!/bin/bash\n" + "\n".join(lines) + "\n")
    os.chmod(path, 0o755)


def _sbatch(args):
    p = subprocess.run(["sbatch", "--parsable"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("sbatch %s: exit %d: %s" % (quote(args), p.returncode, p.stderr.strip()))
    return p.stdout.strip().split(";")[0]  # "jobid" or "jobid;cluster"


def quote(cmd):
    return " ".join(shlex.quote(str(c)) for c in cmd)


def prepare(farm):
    """FARM/shards and FARM/logs, emptied of a previous submission's files (never merge an old shard)."""
    for sub in (SHARDS, LOGS):
        os.makedirs(os.path.join(farm, sub), exist_ok=True)
        for f in glob.glob(os.path.join(farm, sub, "*")):
            if os.path.isfile(f):
                os.remove(f)
    rc = os.path.join(farm, "merge.rc")
    if os.path.exists(rc):
        os.remove(rc)


def submit(name, farm, n, cpus, task_cmd, merge_cmd, a, count_re=None, count_what="runs", total=None):
    """Submits the array (task_cmd: argv with $SLURM_ARRAY_TASK_ID where the task number goes) and the merge job
    (merge_cmd: argv), then waits unless --no-wait. Returns the exit status for the submitter."""
    farm = os.path.abspath(farm)
    prepare(farm)
    task_sh, merge_sh = os.path.join(farm, "task.sh"), os.path.join(farm, "merge.sh")
    # the task number must stay a shell variable: quote everything else
    # the commands are `python3 -m nettwin...`: the tasks import the submitter's copy of the package
    env = "export PYTHONPATH=%s" % shlex.quote(paths.pythonpath())
    _script(task_sh, ["set -u", "cd %s" % shlex.quote(os.getcwd()), env, "exec " + _with_task_id(task_cmd)])
    _script(merge_sh, ["cd %s" % shlex.quote(os.getcwd()), env, quote(merge_cmd),
                       "rc=$?", "echo $rc > %s" % shlex.quote(os.path.join(farm, "merge.rc")), "exit $rc"])
    common = sbatch_options(a)
    try:
        array = _sbatch(["--job-name=%s" % name, "--array=1-%d" % n, "--cpus-per-task=%d" % cpus,
                         "--output=%s" % os.path.join(farm, LOGS, "task-%a.out")] + common + [task_sh])
        merge = _sbatch(["--job-name=%s-merge" % name, "--dependency=afterany:%s" % array, "--cpus-per-task=1",
                         "--output=%s" % os.path.join(farm, LOGS, "merge.out")] + common + [merge_sh])
    except (RuntimeError, OSError) as e:
        print("slurm: cannot submit: %s" % e, file=sys.stderr)
        return 2
    print("slurm: submitted %s: array job %s (%d tasks, %d CPUs each), merge job %s (after the whole array)"
          % (name, array, n, cpus, merge))
    print("slurm: farm directory %s (shards in %s/, logs in %s/)" % (farm, SHARDS, LOGS))
    print("slurm: follow with `squeue -r -j %s,%s`; cancel with `scancel %s %s`" % (array, merge, array, merge))
    sys.stdout.flush()
    if a.no_wait:
        print("slurm: not waiting (--no-wait); the merged result goes to the merge job's log %s"
              % os.path.join(farm, LOGS, "merge.out"))
        return 0
    try:
        return wait(farm, n, array, merge, a.poll, count_re, count_what, total)
    except KeyboardInterrupt:
        print("\nslurm: stopped waiting; the jobs go on (scancel %s %s to stop them)" % (array, merge))
        return 130


def _with_task_id(cmd):
    """cmd quoted for the shell, each $SLURM_ARRAY_TASK_ID left for the shell to expand."""
    out = []
    for c in cmd:
        parts = str(c).split("$SLURM_ARRAY_TASK_ID")
        out.append('"$SLURM_ARRAY_TASK_ID"'.join(shlex.quote(p) if p else "" for p in parts))
    return " ".join(out)


def _squeue(jobs):
    """{array task id or 'merge'-less job id: state} of the jobs still known to squeue, or None if squeue
    failed (a controller that does not answer for a moment)."""
    p = subprocess.run(["squeue", "-h", "-r", "-j", ",".join(jobs), "-o", "%F %K %i %T"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        if "Invalid job id" in p.stderr:
            return {}
        return None
    states = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 4:
            states[(f[0], f[1] if f[1] not in ("N/A", "4294967294") else None)] = f[3]
    return states


def shard_states(farm, n, array, squeue):
    """Per task 1..n: done (its JSON is there; 'failed' if it records failures), running, pending or lost (gone
    from the queue without a JSON: killed, out of time, node failure)."""
    out = {}
    for k in range(1, n + 1):
        path = os.path.join(farm, SHARDS, "shard-%d.json" % k)
        if os.path.exists(path):
            try:
                with open(path) as f:
                    doc = json.load(f)
                out[k] = "failed" if doc.get("summary", {}).get("failed") else "ok"
                continue
            except ValueError:
                pass  # still being written
        st = squeue.get((array, str(k))) if squeue is not None else None
        if st is None and squeue is not None and (array, None) in squeue:
            st = squeue[(array, None)]  # the whole array still pending as one line
        if st in ("PENDING", "CONFIGURING", "REQUEUED", "RESIZING", "SUSPENDED"):
            out[k] = "pending"
        elif st in ("RUNNING", "COMPLETING"):
            out[k] = "running"
        elif squeue is None or _array_pending(squeue, array):
            out[k] = "pending"
        else:
            out[k] = "lost"
    return out


def _array_pending(squeue, array):
    return any(j == array and t is not None and "-" in t for j, t in squeue)


def count_done(farm, n, count_re):
    if not count_re:
        return None
    total = 0
    for k in range(1, n + 1):
        try:
            with open(os.path.join(farm, LOGS, "task-%d.out" % k), errors="replace") as f:
                total += sum(1 for ln in f if count_re.match(ln))
        except OSError:
            pass
    return total


def wait(farm, n, array, merge, poll, count_re=None, count_what="runs", total=None):
    count_re = re.compile(count_re) if isinstance(count_re, str) else count_re
    last, t0, answered = None, time.time(), time.time()
    while True:
        squeue = _squeue([array, merge])
        if squeue is not None:
            answered = time.time()
        elif time.time() - answered > SQUEUE_PATIENCE:
            print("slurm: squeue has not answered for %d s; stopped waiting (the jobs may go on: scancel %s %s)"
                  % (SQUEUE_PATIENCE, array, merge))
            return 2
        states = shard_states(farm, n, array, squeue)
        done = sum(1 for s in states.values() if s in ("ok", "failed"))
        failed = sorted(k for k, s in states.items() if s == "failed")
        lost = sorted(k for k, s in states.items() if s == "lost")
        line = "shards done %d/%d (%d with failed runs%s), running %d, pending %d" % (
            done, n, len(failed), ": " + ",".join(map(str, failed)) if failed else "",
            sum(1 for s in states.values() if s == "running"), sum(1 for s in states.values() if s == "pending"))
        if lost:
            line += ", lost %d (%s: no shard JSON; see %s/task-K.out)" % (len(lost), ",".join(map(str, lost)), LOGS)
        c = count_done(farm, n, count_re)
        if c is not None:
            line += "; %s done %d%s" % (count_what, c, "/%d" % total if total else "")
        if line != last:
            print("slurm: [%5.0f s] %s" % (time.time() - t0, line))
            sys.stdout.flush()
            last = line
        merge_gone = squeue is not None and not any(j == merge for j, _ in squeue)
        rc_path = os.path.join(farm, "merge.rc")
        if os.path.exists(rc_path) or merge_gone:
            time.sleep(0.2)  # merge.rc is written last; give a just-finished job's file a moment
            return finish(farm, rc_path)
        time.sleep(poll)


def finish(farm, rc_path):
    log = os.path.join(farm, LOGS, "merge.out")
    try:
        with open(log, errors="replace") as f:
            sys.stdout.write("slurm: the merge job's output (%s):\n%s" % (log, f.read()))
    except OSError:
        print("slurm: no merge log at %s" % log)
    try:
        with open(rc_path) as f:
            rc = int(f.read().strip())
    except (OSError, ValueError):
        print("slurm: the merge job ended without an exit status (cancelled, or it could not start; "
              "`scontrol show job` tells why while Slurm remembers it)")
        return 2
    sys.stdout.flush()
    return rc
