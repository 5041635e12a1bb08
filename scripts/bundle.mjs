#!/usr/bin/env node
// Joins the command's compiled modules (dist/src/, from `tsc`) into a few files in dist/bundle/, so
// that a start loads a handful of files instead of some two hundred (Node's module loader reads,
// resolves and compiles each file on its own, and that is most of a start's time). Packages stay
// outside and are loaded from node_modules as usual. Modules the command imports on first use
// stay separate files (chunks), loaded on first use as before.
//
// dist/bundle/build.json records which files of dist/ went in and a fingerprint of their content.
// bin/appserver-admin.js runs the bundle only when the files now in dist/ have that fingerprint,
// and dist/src/ otherwise: a `tsc` run after this one (which rewrites dist/src/ and not the bundle)
// never leaves the command running older code.
//
// Run after `tsc` (npm run build does both). Usage: node scripts/bundle.mjs
import { build } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fingerprint } from '../bin/fingerprint.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'bundle');
const ENTRY = join(ROOT, 'dist', 'src', 'cli', 'main.js');

// A module that finds files beside itself (the catalog, package.json, static files) does it from
// import.meta.url, which in a bundle would be the bundle's own address. Each module's
// import.meta.url is replaced by the address of the file it was compiled to, found from the
// bundle's address, so the package can be moved or installed anywhere.
const ownAddress = {
  name: 'own-address',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const fromBundle = relative(OUT, args.path).split(sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`), loader: 'js' };
    });
  },
};

// The old bundle's record goes first: should this run stop half-way, no bundle is taken for fresh.
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const result = await build({
  entryPoints: { main: ENTRY },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [ownAddress],
});
const inputs = Object.keys(result.metafile.inputs)
  .map((p) => relative(ROOT, resolve(ROOT, p)).split(sep).join('/'))
  .sort();
const outside = inputs.filter((p) => !p.startsWith('dist/src/'));
if (outside.length > 0) throw new Error(`the bundle would hold files from outside dist/src/: ${outside.join(', ')}`);
const record = { inputs, fingerprint: fingerprint(ROOT, inputs) };
writeFileSync(join(OUT, 'build.json.tmp'), `${JSON.stringify(record, null, 1)}\n`);
renameSync(join(OUT, 'build.json.tmp'), join(OUT, 'build.json'));
console.log(`dist/bundle: ${inputs.length} modules of dist/src in ${Object.keys(result.metafile.outputs).length} files`);
