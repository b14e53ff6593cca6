#!/usr/bin/python3
"""scripts/README.md checked against the tree, both ways (issue 28 item 5; ctest scripts_readme).

The tree -> the page:
- each entry point (scripts/*.py, scripts/*.sh), test (scripts/tests/*), synthesis file (scripts/synth/*) and
  dissector (scripts/dissectors/*.lua) is named on the page;
- each folder of the package (scripts/nettwin/<dir>/) has its entry in the Layout tree, and that entry names
  every module and shell script of the folder (`gen`, `gen.py` or `test_scripts.sh`);
- each console command of pyproject.toml ([project.scripts]) is described: its module (`nettwin.lb.gen`) or its
  file (`lb/gen.py`) is on the page outside the table of removed wrappers.
The page -> the tree:
- each module it names (`nettwin.<dir>.<name>`) exists (scripts/nettwin/<dir>/<name>.py, or a folder);
- each console command it names (`nettwin-<block>-<tool>`) is in pyproject.toml;
- each file it names as `<dir>/<name>.py|.sh|.lua` (under scripts/, scripts/nettwin/ or scripts/dissectors/)
  exists;
- each ctest it names (ctest `name`, ctests `a`, `b`) is an add_test of CMakeLists.txt.
The table of removed wrappers ("old wrapper (removed)") names files that are gone on purpose: its first
column is not checked.
  /usr/bin/python3 scripts/tests/test_scripts_readme.py
"""
import glob
import os
import re
import sys

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(SCRIPTS)
PKG = os.path.join(SCRIPTS, "nettwin")


def console_commands():
    """{command: module} of pyproject.toml's [project.scripts]."""
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    sec = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^"?([\w-]+)"?\s*=\s*"([\w.]+):main"', sec, re.M))


def ctest_names():
    names = set()
    for path in [os.path.join(ROOT, "CMakeLists.txt")] + glob.glob(os.path.join(ROOT, "*", "**", "CMakeLists.txt"),
                                                                    recursive=True):
        names |= set(re.findall(r"add_test\(\s*NAME\s+([\w-]+)", open(path).read()))
    return names


def layout_entries(readme):
    """{folder: text of its entry} from the Layout tree (`    lb/   layers, gen, ...` and its continuation lines)."""
    tree = readme.split("## Layout", 1)[1].split("```", 2)[1]
    entries, cur = {}, None
    for line in tree.splitlines():
        m = re.match(r"^    ([a-z_]+)/\s", line)
        if m:
            cur = m.group(1)
            entries[cur] = line
        elif cur and re.match(r"^ {8,}\S", line):
            entries[cur] += "\n" + line
        else:
            cur = None
    return entries


def without_wrapper_table(readme):
    """The page with the first column of the removed-wrappers table blanked."""
    out, in_table = [], False
    for line in readme.splitlines():
        if line.startswith("| old wrapper"):
            in_table = True
        elif not line.startswith("|"):
            in_table = False
        if in_table and line.startswith("|"):
            line = "|" + "|".join(line.split("|")[2:])
        out.append(line)
    return "\n".join(out)


def main():
    readme = open(os.path.join(SCRIPTS, "README.md")).read()
    page = without_wrapper_table(readme)
    problems, checked = [], 0

    # the tree -> the page
    names = []
    for pattern in ("*.py", "*.sh", "tests/*", "synth/*", "dissectors/*.lua"):
        names += [os.path.basename(p) for p in glob.glob(os.path.join(SCRIPTS, pattern)) if os.path.isfile(p)]
    for n in sorted(set(names)):
        checked += 1
        if n not in page:
            problems.append("scripts/README.md does not name %s" % n)
    entries = layout_entries(readme)
    folders = sorted(os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(PKG, "*", ""))
                     if not os.path.basename(os.path.dirname(p)).startswith("__"))
    for d in folders:
        checked += 1
        if d not in entries:
            problems.append("scripts/README.md's Layout has no entry nettwin/%s/" % d)
            continue
        words = set(re.findall(r"[\w.]+", entries[d]))
        for f in sorted(os.listdir(os.path.join(PKG, d))):
            stem, ext = os.path.splitext(f)
            if ext not in (".py", ".sh") or stem == "__init__":
                continue
            checked += 1
            if f not in words and not (ext == ".py" and stem in words):
                problems.append("scripts/README.md's Layout entry nettwin/%s/ does not name %s" % (d, f))
    commands = console_commands()
    for cmd, module in sorted(commands.items()):
        checked += 1
        rel = module.split(".", 1)[1].replace(".", "/") + ".py"  # nettwin.lb.gen -> lb/gen.py
        if not re.search(r"(?<![\w.])%s(?![\w])" % re.escape(module), page) and rel not in page:
            problems.append("scripts/README.md does not describe %s (%s): neither %s nor %s is on the page"
                            % (cmd, module, module, rel))

    # the page -> the tree
    for module in sorted(set(re.findall(r"(?<![\w./-])nettwin(?:\.\w+)+", page))):
        checked += 1
        parts = module.split(".")[1:]
        base = os.path.join(PKG, *parts)
        # a module, a folder, or an attribute of a module (nettwin.common.paths.DISSECTORS_DIR)
        if not (os.path.isfile(base + ".py") or os.path.isdir(base)
                or (len(parts) > 1 and os.path.isfile(os.path.join(PKG, *parts[:-1]) + ".py"))):
            problems.append("scripts/README.md names %s, which is no module of scripts/nettwin/" % module)
    for cmd in sorted(set(re.findall(r"(?<![\w/-])nettwin-[a-z0-9-]*[a-z0-9]", page))):
        checked += 1
        if cmd not in commands:
            problems.append("scripts/README.md names the command %s, which pyproject.toml does not define" % cmd)
    for path in sorted(set(re.findall(r"(?<![\w./-])((?:[\w-]+/)+[\w-]+\.(?:py|sh|lua))\b", page))):
        checked += 1
        cands = [os.path.join(ROOT, path), os.path.join(SCRIPTS, path), os.path.join(PKG, path),
                 os.path.join(SCRIPTS, "dissectors", path)]
        if not any(os.path.isfile(c) for c in cands):
            problems.append("scripts/README.md names %s, which does not exist" % path)
    known = ctest_names()
    for group in re.findall(r"ctests? ((?:`[\w-]+`(?:,? (?:and )?)?)+)", page):
        for name in re.findall(r"`([\w-]+)`", group):
            checked += 1
            if name not in known:
                problems.append("scripts/README.md names ctest %s, which CMakeLists.txt does not add" % name)

    for p in problems:
        print(p)
    print("scripts_readme: %d names checked, %d problems" % (checked, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
