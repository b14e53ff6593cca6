#!/usr/bin/python3
"""Every option a `nettwin` subcommand parses is explained in its --help (issue 25).

For each subcommand the options are read from its parser's source (`o == "--name"` in apps/<file>, plus the
shared host-memory options where the parser calls ParseHostMemoryOption, plus the common options its
CommonOptions mask names, `kOptX` -> `--x` as apps/cli_args.cc's table says), and each must appear in the
subcommand's --help outside the usage synopsis (the `usage:` line and its `[...]` continuation lines), i.e.
on a line that says what it does.
  /usr/bin/python3 scripts/tests/test_cli_help.py BUILD_DIR
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# subcommand (and arguments before --help), source file, the parser's text from `start` up to `end`
# (None: to the end of the file).
COMMANDS = [
    (["lb"], "apps/lb_command.cc", None, None),
    (["lb-plan"], "apps/lb_plan_command.cc", None, None),
    (["lb-plan", "--program", "udplb"], "apps/lb_plan_udplb_command.cc", None, None),
    (["rdma"], "apps/rdma_command.cc", "int RdmaCommand(", "int RdmaLatencyCommand("),
    (["rdma-latency"], "apps/rdma_command.cc", "int RdmaLatencyCommand(", None),
    (["naa"], "apps/naa_command.cc", None, None),
    (["re"], "apps/re_command.cc", None, None),
    (["reorder"], "apps/reorder_command.cc", None, None),
    (["reroute"], "apps/reroute_command.cc", None, None),
    (["vnic"], "apps/vnic_command.cc", None, None),
    (["cwloop"], "apps/cwloop_command.cc", None, None),
]
HOST_OPTIONS_FILE = "apps/host_memory_options.h"
COMMON_OPTIONS_FILE = "apps/cli_args.cc"
OPTION = re.compile(r'o == "(--[a-z0-9-]+)"')
COMMON_NAME = re.compile(r'\{(kOpt[A-Za-z]+), "(--[a-z0-9-]+)"\}')
COMMON_MASK = re.compile(r'CommonOptions \w*[({]([^;]*?)[)}];', re.S)


def common_options(text):
    """The common options a parser's CommonOptions mask enables."""
    names = dict(COMMON_NAME.findall(open(os.path.join(ROOT, COMMON_OPTIONS_FILE)).read()))
    opts = set()
    for mask in COMMON_MASK.findall(text):
        opts |= {names[f] for f in re.findall(r"kOpt[A-Za-z]+", mask) if f in names}
    return opts


def parsed_options(path, start, end):
    text = open(os.path.join(ROOT, path)).read()
    if start is not None:
        text = text[text.index(start):]
    if end is not None:
        text = text[:text.index(end)]
    opts = set(OPTION.findall(text)) | common_options(text)
    if "ParseHostMemoryOption(" in text:
        opts |= set(OPTION.findall(open(os.path.join(ROOT, HOST_OPTIONS_FILE)).read()))
    return opts


def explained_text(help_text):
    """The help without its usage synopsis."""
    out, in_usage = [], False
    for line in help_text.splitlines():
        s = line.strip()
        if s.startswith("usage:"):
            in_usage = True
            continue
        if in_usage and s.startswith("["):
            continue
        in_usage = False
        out.append(line)
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    nettwin = os.path.join(sys.argv[1], "nettwin")
    failures = 0
    for args, path, start, end in COMMANDS:
        p = subprocess.run([nettwin] + args + ["--help"], capture_output=True, text=True)
        name = " ".join(args)
        if p.returncode != 0:
            print("FAIL %s --help: exit %d" % (name, p.returncode))
            failures += 1
            continue
        body = explained_text(p.stdout)
        opts = sorted(parsed_options(path, start, end))
        missing = [o for o in opts if not re.search(re.escape(o) + r"(?![a-z0-9-])", body)]
        if not opts:
            print("FAIL %s: no options found in %s (parser changed shape?)" % (name, path))
            failures += 1
        elif missing:
            print("FAIL %s --help does not explain: %s" % (name, " ".join(missing)))
            failures += 1
        else:
            print("ok   %s: %d options explained" % (name, len(opts)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
