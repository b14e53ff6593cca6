#!/usr/bin/env python3
"""Keeps rtl/ in the SystemVerilog subset that both Verilator and Yosys (read_verilog -sv) read.

Yosys 0.55's Verilog frontend rejects every `import pkg::*;` and every `return` in a function (docs/synthesis.md
"One RTL source"). This codemod rewrites both, deterministically and idempotently:

  * `import P::*;` (in a module header, a module body or a package) is removed, and every use of a name that P
    declares (parameter, localparam, typedef, enum constant, function) in that file becomes `P::name`. Names the
    file declares itself (a package's own items, a module's signals, ports, parameters, functions, arguments,
    loop variables) are left alone, as SystemVerilog's wildcard import would.
  * `return EXPR;` as the last statement of a function becomes `fname = EXPR;`. A `return` anywhere else is an
    error (rewrite that function by hand: an early return has no one-line equivalent).

    scripts/synth/sv_compat.py --check [FILES...]   # exit 1 and list every import / return left (ctest rtl_synth_compat)
    scripts/synth/sv_compat.py --fix [FILES...]     # rewrite in place (default files: rtl/**/*.sv)

Comments and strings are never changed.
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
IMPORT = re.compile(r"\bimport\s+(\w+)\s*::\s*\*\s*;")
RETURN = re.compile(r"\breturn\b")
# Keywords that can precede a declared name (possibly after a packed dimension).
DECL_TYPES = {"logic", "bit", "byte", "int", "integer", "shortint", "longint", "genvar", "wire", "reg",
              "unsigned", "signed", "type", "var"}
KEYWORDS = DECL_TYPES | {
    "module", "endmodule", "package", "endpackage", "function", "endfunction", "task", "endtask", "begin", "end",
    "if", "else", "for", "case", "unique", "unique0", "priority", "endcase", "default", "always_ff", "always_comb",
    "always_latch", "always", "assign", "posedge", "negedge", "or", "and", "input", "output", "inout", "localparam",
    "parameter", "typedef", "enum", "struct", "union", "packed", "automatic", "static", "return", "generate",
    "endgenerate", "import", "export", "const", "void", "while", "do", "foreach", "initial", "final", "assert",
    "property", "endproperty", "assume", "cover", "disable", "iff", "inside", "string", "real", "time", "null"}


def code_mask(text):
    """A list of booleans: True where text[i] is code (not in a comment or a string)."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    while i < n:
        two = text[i:i + 2]
        if two == "//":
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif two == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + 1)
        else:
            i += 1
            continue
        for k in range(i, j):
            mask[k] = False
        i = j
    return mask


def blank_noncode(text):
    """text with comments and strings replaced by spaces (newlines kept), for analysis."""
    mask = code_mask(text)
    return "".join(c if m or c == "\n" else " " for c, m in zip(text, mask))


def split_top(s, sep=","):
    """Splits s at sep outside (), [], {}."""
    parts, depth, cur = [], 0, []
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def strip_brackets(s):
    """s without any [...] (packed/unpacked dimensions), nested."""
    out, depth = [], 0
    for c in s:
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


def param_and_type_names(code):
    """Names declared by parameter/localparam lists, typedefs (the type) and enums (the constants)."""
    names = set()
    for m in re.finditer(r"\b(?:localparam|parameter)\b([^;]*);", code):
        for part in split_top(m.group(1)):
            ids = IDENT.findall(strip_brackets(split_top(part, "=")[0]))
            if ids:
                names.add(ids[-1])
    for m in re.finditer(r"\btypedef\b", code):
        depth, j = 0, m.end()
        while j < len(code):
            c = code[j]
            if c in "{([":
                depth += 1
            elif c in "})]":
                depth -= 1
            elif c == ";" and depth == 0:
                break
            j += 1
        body = code[m.end():j]
        ids = IDENT.findall(strip_brackets(re.sub(r"\{.*\}", " ", body, flags=re.S)))
        if ids:
            names.add(ids[-1])
        em = re.search(r"\benum\b[^{]*\{(.*)\}", body, re.S)
        if em:
            for item in split_top(em.group(1)):
                ids = IDENT.findall(strip_brackets(split_top(item, "=")[0]))
                if ids:
                    names.add(ids[0])
    return names


def declared_names(code):
    """Names a file (comments blanked) declares: parameters, typedefs, enum constants, functions, their
    arguments and locals, ports, signals, loop variables. Heuristic, but errs on the side of 'declared'."""
    names = set()
    names |= param_and_type_names(code)
    # functions and tasks: the name, every argument
    for m in re.finditer(r"\b(?:function|task)\b(.*?);", code, re.S):
        head = m.group(1)
        pm = re.search(r"(\w+)\s*\(", strip_brackets(head))
        if pm:
            names.add(pm.group(1))
            args = strip_brackets(head)[pm.end():]
            args = args[:args.rfind(")")] if ")" in args else args
            for part in split_top(args):
                lhs = split_top(part, "=")[0]
                ids = IDENT.findall(lhs)
                if ids:
                    names.add(ids[-1])
        else:
            ids = IDENT.findall(strip_brackets(head))
            if ids:
                names.add(ids[-1])
    # declarations: TYPE [dims] a [dims], b [dims] ... ; where TYPE is a keyword or a *_t / *_e type name,
    # and port declarations (input/output ... name)
    decl = re.compile(r"(?:\b(?:input|output|inout)\b|\b(?:logic|bit|byte|int|integer|shortint|longint|genvar|wire|"
                      r"reg|var|unsigned|signed)\b|\b\w+_[te]\b|\b\w+::\w+_[te]\b)")
    for m in decl.finditer(code):
        j = m.end()
        if code[j:j + 1] == "'" or code[m.start() - 1:m.start()] in ("'", "."):
            continue  # a cast (int'(x), foo_t'(x)) or a member, not a declaration
        # the rest of the statement / port item: up to ';' or ')' at depth 0 (ports and args end at ',' or ')')
        depth, k = 0, j
        while k < len(code):
            c = code[k]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif c == ";" and depth == 0:
                break
            k += 1
        rest = code[j:k]
        for part in split_top(rest):
            lhs = split_top(part, "=")[0]
            ids = [i for i in IDENT.findall(strip_brackets(lhs)) if i not in KEYWORDS]
            # 'int unsigned x', 'logic signed [3:0] x', 'mr_t mrs [N]': the first plain identifier after the
            # type is the name; 'input logic foo_t x' gives foo_t first only if it is a type (ends _t/_e)
            ids = [i for i in ids if not re.fullmatch(r"\w+_[te]", i)]
            if ids and re.match(r"\s*(?:\[[^\]]*\]\s*)*[A-Za-z_]", strip_brackets(lhs) or "x"):
                names.add(ids[0])
    return names


def package_exports(code):
    """name -> kind for one package file (comments blanked)."""
    m = re.search(r"\bpackage\s+(\w+)\s*;(.*)\bendpackage\b", code, re.S)
    if not m:
        return None, {}
    body = m.group(2)
    # only the package's top level: blank function bodies before collecting parameters/typedefs
    top = re.sub(r"\bfunction\b(.*?)\bendfunction\b",
                 lambda f: "function" + f.group(1).split(";", 1)[0] + ";" + " " * 0 + "endfunction", body, flags=re.S)
    ex = param_and_type_names(top)
    for mm in re.finditer(r"\bfunction\b(.*?);", top, re.S):
        pm = re.search(r"(\w+)\s*\(", strip_brackets(mm.group(1)))
        if pm:
            ex.add(pm.group(1))
    return m.group(1), ex


def load_packages(files):
    pkgs = {}
    for f in files:
        name, ex = package_exports(blank_noncode(f.read_text()))
        if name:
            pkgs[name] = ex
    return pkgs


def fix_imports(text, pkgs, path):
    code = blank_noncode(text)
    imports = [m.group(1) for m in IMPORT.finditer(code)]
    if not imports:
        return text
    own_pkg = re.search(r"\bpackage\s+(\w+)\s*;", code)
    own = pkgs.get(own_pkg.group(1), set()) if own_pkg else set()
    local = declared_names(IMPORT.sub(" ", code)) | own
    owner = {}
    for p in imports:
        if p not in pkgs:
            raise SystemExit(f"{path}: import of unknown package {p}")
        for n in pkgs[p]:
            if n in local:
                continue
            if n in owner and owner[n] != p:
                owner[n] = None  # ambiguous: both define it (a use would be an error in SV too)
            else:
                owner[n] = p
    mask = code_mask(text)
    out, last = [], 0
    # 1) remove the import statements (with their line if nothing else is on it)
    spans = []
    for m in IMPORT.finditer(code):
        s, e = m.start(), m.end()
        ls = text.rfind("\n", 0, s) + 1
        le = text.find("\n", e)
        le = len(text) if le < 0 else le
        if text[ls:s].strip() == "" and text[e:le].strip() == "":
            spans.append((ls, le + 1, ""))
        else:
            spans.append((s, e, ""))
    # 2) qualify the uses
    for m in IDENT.finditer(code):
        n = m.group(0)
        if n not in owner or not mask[m.start()]:
            continue
        if owner[n] is None:
            raise SystemExit(f"{path}: {n} is declared by more than one imported package")
        before = code[max(0, m.start() - 16):m.start()].rstrip()
        if before.endswith((".", "::", "`", "$", "'")) or code[m.start() - 1:m.start()] in ("'", "$", "`"):
            continue
        if any(s <= m.start() < e for s, e, _ in spans):
            continue
        spans.append((m.start(), m.end(), f"{owner[n]}::{n}"))
    spans.sort()
    for s, e, rep in spans:
        out.append(text[last:s])
        out.append(rep)
        last = e
    out.append(text[last:])
    return "".join(out)


def fix_returns(text, path):
    """`return X;` directly before `endfunction` -> `fname = X;`; any other return is an error."""
    errors = []
    while True:
        code = blank_noncode(text)
        m = RETURN.search(code)
        if not m:
            break
        fstart = max((f.start() for f in re.finditer(r"\bfunction\b", code[:m.start()])), default=-1)
        fend = code.find("endfunction", m.end())
        line = text.count("\n", 0, m.start()) + 1
        if fstart < 0 or fend < 0:
            errors.append(f"{path}:{line}: return outside a function")
            break
        head = code[fstart:code.find(";", fstart)]
        nm = re.search(r"(\w+)\s*\(", strip_brackets(head[len("function"):]))
        fname = nm.group(1) if nm else IDENT.findall(strip_brackets(head))[-1]
        # the statement's end: ';' at paren depth 0
        depth, j = 0, m.end()
        while j < len(code) and not (code[j] == ";" and depth == 0):
            depth += code[j] in "([{"
            depth -= code[j] in ")]}"
            j += 1
        if code[j + 1:fend].strip() != "":
            errors.append(f"{path}:{line}: return in {fname} is not its last statement (rewrite by hand)")
            break
        expr = text[m.end():j].lstrip()
        text = text[:m.start()] + f"{fname} = " + expr + text[j:]
    return text, errors


STRUCT_TYPEDEF = re.compile(r"\btypedef\s+struct\s+packed\s*\{[^{}]*\}\s*(\w+)\s*;")


def struct_arrays(files):
    """Packed arrays of packed structs (`pkg::s_t [N-1:0] x`, also as a port, a function argument or in a typedef).
    Yosys 0.55 reads them silently as ONE element wide (measured: `input p::s_t [3:0] x_i` of a 12-bit s_t is a
    12-bit port; a constant index > 0 is "Range select out of bounds ... Setting result bit to undef", a variable
    index reads element 0 or undef), so the netlist lacks every element but the first (YosysHQ/yosys#2677: arrays
    of structs are not handled by the frontend). Verilator reads them correctly. Packed arrays of enums and of
    plain vectors are read correctly. Unpacked arrays of a struct type (`p::s_t mem_q [8]`) too are read as ONE
    element (measured 2026-11-28, branch ring18: `reg [11:0] mem_q;` where the RTL holds 8), so they are listed as
    well; an unpacked array of words of the struct's width (`logic [$bits(v)-1:0] mem_q [8]`) is read correctly.
    Returns [(file:line, type, declaration line text)]."""
    texts = {f: pathlib.Path(f).read_text() for f in files}
    names = set()
    for text in texts.values():
        names |= set(STRUCT_TYPEDEF.findall(blank_noncode(text)))
    if not names:
        return []
    alt = "|".join(sorted(names))
    packed = re.compile(r"(?<![\w$])(?:\w+::)?(" + alt + r")\s*\[")
    unpacked = re.compile(r"(?<![\w$])(?:\w+::)?(" + alt + r")\s+\w+\s*\[")
    hits = []
    for f, text in texts.items():
        code = blank_noncode(text)
        for m in sorted([*packed.finditer(code), *unpacked.finditer(code)], key=lambda m: m.start()):
            line = text.count("\n", 0, m.start()) + 1
            hits.append((f"{f}:{line}", m.group(1), text.splitlines()[line - 1].strip()))
    return hits


def rtl_files(args_files):
    if args_files:
        return [pathlib.Path(f) for f in args_files]
    return sorted((ROOT / "rtl").rglob("*.sv"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="list every import/return left; exit 1 if any")
    g.add_argument("--fix", action="store_true", help="rewrite the files in place")
    g.add_argument("--struct-arrays", action="store_true", help="list every array (packed or unpacked) of packed "
                   "structs (Yosys 0.55 reads it as one element: docs/synthesis.md); exit 1 if any")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = rtl_files(a.files)
    problems = []
    if a.struct_arrays:
        hits = struct_arrays(files)
        for where, typ, line in hits:
            print(f"{where}: array of struct {typ} (Yosys 0.55 reads one element): {line}")
        print(f"sv_compat: {len(files)} files, {len(hits)} arrays of structs (packed or unpacked)")
        return 1 if hits else 0
    if a.check:
        for f in files:
            text = f.read_text()
            code = blank_noncode(text)
            for rx, what in ((IMPORT, "import"), (RETURN, "return")):
                for m in rx.finditer(code):
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{f}:{line}: {what} (Yosys 0.55 rejects it; scripts/synth/sv_compat.py --fix)")
        for p in problems:
            print(p)
        print(f"sv_compat: {len(files)} files, {len(problems)} import/return left")
        return 1 if problems else 0
    pkgs = load_packages(sorted((ROOT / "rtl").rglob("*_pkg.sv")))
    changed = 0
    for f in files:
        text = f.read_text()
        new = fix_imports(text, pkgs, f)
        new, errs = fix_returns(new, f)
        problems += errs
        if new != text:
            f.write_text(new)
            changed += 1
    for p in problems:
        print(p)
    print(f"sv_compat: {changed} of {len(files)} files rewritten, {len(problems)} left to rewrite by hand")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
