#!/usr/bin/env node
// Joins the command's compiled modules (dist/src/, from `tsc`) and the packages every server start
// loads (fastify, pino, commander, @fastify/multipart and what they require) into a few files in
// dist/bundle/, so that a start reads and compiles a handful of files instead of some five hundred
// (Node's module loader resolves, reads and compiles each file on its own, and that was most of a
// start's time). Modules the command imports on first use stay separate files (chunks), loaded on
// first use as before; other packages, and the SQLite binding, are loaded from node_modules as usual.
//
// dist/bundle/build.json records the files of dist/src/ that went in and the package.json of each
// package that went in, with a fingerprint of their content. bin/appserver-admin.js runs the bundle
// only when those files have that fingerprint now, and dist/src/ otherwise: a `tsc` run after this
// one (which rewrites dist/src/ and not the bundle), or another version of a package installed
// since, never leaves the command running older code. (A package's code is known by its
// package.json: a published version never changes. A package edited by hand in node_modules needs
// `npm run build` again.)
//
// Run after `tsc` (npm run build does both). Usage: node scripts/bundle.mjs
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fingerprint } from '../bin/fingerprint.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'bundle');
const ENTRY = join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** Packages our modules import that go into the bundle, with what they require. */
const BUNDLED = new Set(['fastify', 'pino', 'commander', '@fastify/multipart']);
/** Required by those only in cases a server does not meet (it sets its own compilers) or a test's: left in node_modules. */
const LEFT_OUT = new Set(['better-sqlite3', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'light-my-request']);

const posix = (path) => path.split(sep).join('/');
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
/** The folder of the package holding `file` (relative to ROOT): node_modules/<name> or node_modules/@scope/<name>, the innermost. */
function packageFolder(file) {
  const at = file.lastIndexOf('node_modules/') + 'node_modules/'.length;
  return file.slice(0, at) + packageOf(file.slice(at));
}

const choose = {
  name: 'choose-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      const name = packageOf(args.path);
      if (LEFT_OUT.has(name)) return { external: true };
      const fromOurs = !args.importer.split(sep).includes('node_modules');
      if (fromOurs && !BUNDLED.has(name)) return { external: true };
      return undefined;
    });
  },
};

// In a bundle, import.meta.url would be the bundle's address, and __dirname/__filename undefined; a
// module that finds files beside itself (our catalog, package.json, static files; a package's
// worker script) needs its own. Each module gets the address of its own file, computed from the
// bundle's, so the package can be moved or installed anywhere.
const ownAddress = {
  name: 'own-address',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const fromBundle = JSON.stringify(posix(relative(OUT, args.path)));
      if (!args.path.split(sep).includes('node_modules')) {
        return { contents: text.replaceAll('import.meta.url', `new URL(${fromBundle}, import.meta.url).href`), loader: 'js' };
      }
      if (!/\b__(dirname|filename)\b/.test(text)) return undefined;
      const own = `var __filename = __bundleFile(${fromBundle}), __dirname = __bundleDir(__filename);\n`;
      return { contents: own + text, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

// Every file of the bundle: `require` for the packages' require() calls (resolved from node_modules
// as usual), and the helpers above.
const banner = [
  "import { createRequire as __bundleRequire } from 'node:module';",
  "import { fileURLToPath as __bundlePath } from 'node:url';",
  "import { dirname as __bundleDir } from 'node:path';",
  'const require = __bundleRequire(import.meta.url);',
  'const __bundleFile = (path) => __bundlePath(new URL(path, import.meta.url));',
].join('\n');

// The old bundle's record goes first: should this run stop half-way, no bundle is taken for current.
// Its files stay until the next build: a server started from it may still load a chunk on first use.
// (Not when packing: the tarball holds this build's files only.)
const RECORD = join(OUT, 'build.json');
/** @type {string[]} */
let previous = [];
try {
  if (process.env.npm_command !== 'pack' && process.env.npm_command !== 'publish') previous = JSON.parse(readFileSync(RECORD, 'utf8')).outputs ?? [];
} catch {
  // no bundle before, or none readable: nothing to keep
}
rmSync(RECORD, { force: true });
mkdirSync(OUT, { recursive: true });
const result = await build({
  entryPoints: { main: ENTRY },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
  banner: { js: banner },
  plugins: [choose, ownAddress],
});
const files = Object.keys(result.metafile.inputs).map((p) => posix(relative(ROOT, resolve(ROOT, p))));
const ours = files.filter((p) => p.startsWith('dist/src/'));
const packages = [...new Set(files.filter((p) => p.includes('node_modules/')).map(packageFolder))];
const strays = files.filter((p) => !p.startsWith('dist/src/') && !p.includes('node_modules/'));
if (strays.length > 0) throw new Error(`the bundle would hold files from neither dist/src/ nor node_modules/: ${strays.join(', ')}`);
const inputs = [...ours.sort(), ...packages.sort().map((folder) => `${folder}/package.json`)];
// The packages' licences travel with their code: each bundled package's name, version, licence
// and licence text, in dist/bundle/NOTICE.md.
const notices = packages.sort().map((folder) => {
  const { name, version, license } = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8'));
  const file = readdirSync(join(ROOT, folder)).find((f) => /^(licen[cs]e|copying)/i.test(f));
  const text = file ? readFileSync(join(ROOT, folder, file), 'utf8').trim() : `(the package ships no licence file; its package.json names ${license})`;
  return `## ${name} ${version} (${license})\n\n\`\`\`\n${text}\n\`\`\`\n`;
});
writeFileSync(join(OUT, 'NOTICE.md'), `# Packages in this bundle\n\nThe files of dist/bundle/ hold the code of these packages, under their licences:\n\n${notices.join('\n')}`);
const outputs = Object.keys(result.metafile.outputs).map((p) => posix(relative(OUT, resolve(ROOT, p))));
for (const file of readdirSync(OUT)) {
  if (file !== 'NOTICE.md' && !outputs.includes(file) && !previous.includes(file)) rmSync(join(OUT, file), { force: true });
}
const record = { inputs, fingerprint: fingerprint(ROOT, inputs), outputs };
writeFileSync(join(OUT, 'build.json.tmp'), `${JSON.stringify(record, null, 1)}\n`);
renameSync(join(OUT, 'build.json.tmp'), RECORD);
console.log(`dist/bundle: ${ours.length} modules of dist/src and ${packages.length} packages (${files.length - ours.length} files) in ${Object.keys(result.metafile.outputs).length} files`);
