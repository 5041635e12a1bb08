// The project as a package: `npm pack` gives a tarball holding the built JavaScript (and its bundle), the catalog
// and the console's files (no tests, benchmarks or fixtures); installed globally into a temporary
// prefix, its `appserver-admin` prints its version and serves a new demo domain whose readiness
// probe answers. Offline-friendly: the dependencies come from npm's cache (filled by `npm ci`), and
// the SQLite binding's native build is the one this checkout already made (the same pinned
// version), instead of compiling it again; docs/running.md names the flag a real install needs.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from '../support/cli.js';

const noNpm = spawnSync('npm', ['--version']).error ? 'npm is not on the PATH: the package cannot be packed here' : false;
const work = mkdtempSync(join(tmpdir(), 'appserver-package-'));
let server: ChildProcess | undefined;
after(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((done) => server!.once('close', done));
  }
  rmSync(work, { recursive: true, force: true });
});

function npm(args: string[], cwd = ROOT): { status: number | null; out: string } {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }, timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

test('npm pack, npm i -g into a prefix, appserver-admin --version and serve', { skip: noNpm, timeout: 180_000 }, async () => {
  // The build is the suite's own (npm test compiles first); packing does not build again.
  assert.ok(existsSync(join(ROOT, 'dist/src/cli/main.js')), 'the project is built');
  const packed = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work]);
  assert.equal(packed.status, 0, packed.out);
  const [info] = JSON.parse(packed.out.slice(packed.out.indexOf('['), packed.out.lastIndexOf(']') + 1)) as { filename: string; size: number; files: { path: string }[] }[];
  const files = info!.files.map((f) => f.path);
  for (const needed of ['bin/appserver-admin.js', 'bin/fingerprint.js', 'dist/src/cli/main.js', 'dist/bundle/main.js', 'dist/bundle/build.json', 'dist/bundle/NOTICE.md', 'dist/src/client/index.js', 'catalog/catalog.json', 'src/console/static/index.html', 'src/browse/static/browse.js', 'src/client/index.ts', 'package.json', 'README.md']) {
    assert.ok(files.includes(needed), `the tarball holds ${needed}`);
  }
  const unwanted = files.filter((f) => /^(test|bench|scripts|examples|dist\/test|dist\/bench)\//.test(f) || f.endsWith('.map') || /fixtures/.test(f));
  assert.deepEqual(unwanted, [], 'no tests, benchmarks, fixtures or source maps');
  assert.ok(info!.size < 2_000_000, `the tarball is ${info!.size} bytes`);

  // A global install into a prefix of its own, from npm's cache; install scripts off (see above).
  const prefix = join(work, 'prefix');
  const tarball = join(work, info!.filename);
  let installed = npm(['install', '--global', '--prefix', prefix, '--offline', '--ignore-scripts', tarball], work);
  if (installed.status !== 0) installed = npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--ignore-scripts', tarball], work);
  assert.equal(installed.status, 0, installed.out);
  const home = join(prefix, 'lib', 'node_modules', 'appserver-admin');
  assert.ok(!existsSync(join(home, 'node_modules', 'typescript')), 'no build tools were installed');
  assert.ok(!existsSync(join(home, 'test')) && !existsSync(join(home, 'bench')));
  const binding = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  const version = (dir: string) => (JSON.parse(readFileSync(join(dir, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version;
  assert.equal(version(home), version(ROOT), 'the same better-sqlite3 as this checkout');
  mkdirSync(join(home, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
  copyFileSync(join(ROOT, binding), join(home, binding));

  // The installed files have other times than the built ones, and npm may have resolved newer
  // versions of the packages than the checkout's lock file: the bundle is taken as current exactly
  // when the installed packages it holds are the checkout's (its fingerprint is of the files'
  // content), else the installed command runs dist/src; either way it serves (below).
  const record = JSON.parse(readFileSync(join(home, 'dist', 'bundle', 'build.json'), 'utf8')) as { inputs: string[] };
  const samePackages = record.inputs
    .filter((p) => p.startsWith('node_modules/'))
    .every((p) => existsSync(join(home, p)) && readFileSync(join(home, p), 'utf8') === readFileSync(join(ROOT, p), 'utf8'));
  const check = `import { fingerprint } from ${JSON.stringify(join(home, 'bin', 'fingerprint.js'))}; import { readFileSync } from 'node:fs';
    const r = JSON.parse(readFileSync(${JSON.stringify(join(home, 'dist', 'bundle', 'build.json'))}, 'utf8')); process.stdout.write(String(fingerprint(${JSON.stringify(home)}, r.inputs) === r.fingerprint));`;
  assert.equal(spawnSync(process.execPath, ['--input-type=module', '-e', check], { encoding: 'utf8' }).stdout, String(samePackages), 'the installed bundle is current when its packages are');

  const bin = join(prefix, 'bin', 'appserver-admin');
  const own = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8', cwd: work });
  assert.equal(v.status, 0, v.stderr);
  assert.equal(v.stdout.trim(), own);

  // serve, from another directory: it finds its catalog and files in the installed package.
  server = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0', '--no-listeners', '--data-dir', join(work, 'data')], {
    cwd: work,
    env: { ...process.env, APPSERVER_ADMIN_USER: 'admin', APPSERVER_ADMIN_PASSWORD: 'welcome1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  server.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const origin = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the installed server did not start within 60 s:\n${out}`)), 60_000);
    server!.stdout!.on('data', () => {
      const m = /listening on (http:\/\/[^/\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]!);
      }
    });
    server!.once('close', (code) => fail(new Error(`the installed server exited (${code}):\n${out}`)));
  });
  const ready = await fetch(`${origin}/appserver/ready`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { server: 'AdminServer', state: 'RUNNING' });
  assert.equal((await fetch(`${origin}/console/`)).status, 200, 'the console is served from the package');
  const auth = { authorization: `Basic ${Buffer.from('admin:welcome1').toString('base64')}` };
  assert.equal((await fetch(`${origin}/management/appserver/docs/swagger-ui-bundle.js`, { headers: auth })).status, 200, 'the API reference page is served from the package');
  assert.equal((await fetch(`${origin}/management/appserver/latest/edit/servers/ms1?links=none`, { headers: auth })).status, 200);
  assert.doesNotMatch(out, /warn/i, out);
});
