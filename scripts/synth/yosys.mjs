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
const { runYosys, Exit } = await import(pathToFileURL(path.join(modDir, 'gen', 'bundle.js')).href);

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
