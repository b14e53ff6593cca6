// Runs YoWASP Yosys (the @yowasp/yosys npm package, WebAssembly) on real files, as a command line would:
//
//   node scripts/synth/yosys.mjs <yosys_module_dir> <in_dir> <out_dir> <yosys args...>
//
// Every file under <in_dir> (e.g. the repository's rtl/ plus a script) is put into Yosys's virtual file system
// under the same relative path, Yosys runs in that tree (its current directory), and every file it leaves
// under out/ is written to <out_dir>. The exit code is Yosys's. stdout/stderr are passed through.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [modDir, inDir, outDir, ...args] = process.argv.slice(2);
if (!modDir || !inDir || !outDir) {
  console.error('usage: yosys.mjs <yosys_module_dir> <in_dir> <out_dir> <yosys args...>');
  process.exit(2);
}
// YoWASP's in-memory file system (@yowasp/runtime) copies the whole file on every write a program makes to it, so
// writing an N-byte file in k-byte pieces costs N^2 / 2k byte copies. Yosys's abc pass writes its gate netlist
// (input.blif) that way: for re_decide (hundreds of MB) that step ran for 46+ minutes without finishing. The runtime
// is patched here, in a copy of the bundle beside the original (it imports its resources by relative path), to
// grow a file's buffer geometrically; file contents are unchanged (docs/synthesis.md "ABC's netlist and the
// in-memory file system"). If the pattern is not found (another YoWASP version), the original bundle is used.
const QUADRATIC_WRITE = `  write(contents) {
    const newData = new Uint8Array(this.file.data.length + contents.length);
    newData.set(this.file.data);
    newData.subarray(Number(this.offset)).set(contents);
    this.file.data = newData;
    this.offset += BigInt(contents.length);
  }`;
const GEOMETRIC_WRITE = `  write(contents) {
    const f = this.file;
    const at = Number(this.offset);
    const size = Math.max(f.data.length, at + contents.length);
    let buf = f.data;
    if (f._nt_buf && f.data.buffer === f._nt_buf.buffer && f.data.byteOffset === 0) buf = f._nt_buf;
    if (buf.length < size) {
      const grown = new Uint8Array(Math.max(size, 2 * buf.length, 65536));
      grown.set(f.data);
      buf = grown;
    }
    buf.set(contents, at);
    f._nt_buf = buf;
    f.data = buf.subarray(0, size);
    this.offset += BigInt(contents.length);
  }`;

function patchedBundle(dir) {
  const orig = path.join(dir, 'gen', 'bundle.js');
  const text = fs.readFileSync(orig, 'utf8');
  if (!text.includes(QUADRATIC_WRITE)) {
    console.error('yosys.mjs: YoWASP runtime write pattern not found; using the unpatched bundle (slow big writes)');
    return orig;
  }
  const out = path.join(dir, 'gen', 'bundle-nettwin.js');
  const want = text.replace(QUADRATIC_WRITE, GEOMETRIC_WRITE);
  if (!fs.existsSync(out) || fs.readFileSync(out, 'utf8') !== want) {
    const tmp = `${out}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, want);
    fs.renameSync(tmp, out);  // atomic: parallel runs (synth.py -j N) may race here
  }
  return out;
}

const bundle = process.env.NT_YOSYS_UNPATCHED ? path.join(modDir, 'gen', 'bundle.js') : patchedBundle(modDir);
const { runYosys, Exit } = await import(pathToFileURL(bundle).href);

function readTree(dir) {
  const tree = {};
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    tree[e.name] = e.isDirectory() ? readTree(p) : fs.readFileSync(p);
  }
  return tree;
}

function writeTree(tree, dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, v] of Object.entries(tree)) {
    const p = path.join(dir, name);
    if (typeof v === 'string' || v instanceof Uint8Array) fs.writeFileSync(p, v);
    else writeTree(v, p);
  }
}

const files = readTree(inDir);
files.out = {};
let code = 0;
let result;
try {
  result = await runYosys(args, files, {
    stdout: (b) => { if (b) process.stdout.write(b); },
    stderr: (b) => { if (b) process.stderr.write(b); },
  });
} catch (e) {
  if (e instanceof Exit) {
    code = e.code;
    result = e.files;
  } else {
    throw e;
  }
}
if (result && result.out) writeTree(result.out, outDir);
process.exit(code);
