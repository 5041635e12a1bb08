// The launcher (bin/appserver-admin.js) runs the bundle in dist/bundle/ only when it was made from
// the JavaScript now in dist/src/ and the packages now installed, so a compile after the bundle
// (`npx tsc` alone) or another version of a package never leaves the command running older code. Checked on a copy of the built project whose bundle is marked: its
// `--help` says which of the two ran.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from '../support/cli.js';

const work = mkdtempSync(join(tmpdir(), 'appserver-launcher-'));
after(() => rmSync(work, { recursive: true, force: true }));

const DESCRIPTION = 'Administration server of an appserver domain';

/** A copy of the built project (no source maps), with the bundle's description marked. */
function copyProject(): string {
  const home = mkdtempSync(join(work, 'project-'));
  for (const part of ['bin', 'dist/src', 'dist/bundle', 'package.json']) {
    cpSync(join(ROOT, part), join(home, part), { recursive: true, filter: (from) => !from.endsWith('.map') });
  }
  // node_modules: the checkout's packages, linked, but for a copy of commander (which the bundle holds).
  mkdirSync(join(home, 'node_modules'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name === 'commander') cpSync(join(ROOT, 'node_modules', name), join(home, 'node_modules', name), { recursive: true });
    else symlinkSync(join(ROOT, 'node_modules', name), join(home, 'node_modules', name));
  }
  const bundleMain = join(home, 'dist/bundle/main.js');
  const text = readFileSync(bundleMain, 'utf8');
  assert.equal(text.split(DESCRIPTION).length, 2, 'the bundle holds the command description once (npm run build makes the bundle)');
  writeFileSync(bundleMain, text.replace(DESCRIPTION, `${DESCRIPTION} (from the bundle)`));
  return home;
}

/** The first line of `--help` after the usage: the command's description. */
function description(home: string): string {
  const r = spawnSync(process.execPath, [join(home, 'bin/appserver-admin.js'), '--help'], { encoding: 'utf8', cwd: work });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').find((l) => l.startsWith(DESCRIPTION)) ?? r.stdout;
}

test('the bundle runs while dist/src holds what it was made from, even compiled again since', () => {
  const home = copyProject();
  assert.equal(description(home), `${DESCRIPTION} (from the bundle)`);
  // A compile that changes nothing rewrites every file (new times, same content): the bundle still serves.
  const server = join(home, 'dist/src/cli/server.js');
  const same = readFileSync(server);
  unlinkSync(server);
  writeFileSync(server, same);
  assert.equal(description(home), `${DESCRIPTION} (from the bundle)`);
});

test('dist/src runs when any module the bundle holds has changed, even one loaded only later', () => {
  const home = copyProject();
  // server.js is loaded only by `serve`: a change there still makes the whole bundle out of date.
  const server = join(home, 'dist/src/cli/server.js');
  writeFileSync(server, `${readFileSync(server, 'utf8')}\n// compiled again from changed sources\n`);
  assert.equal(description(home), DESCRIPTION);
  // And what runs is the new code in dist/src.
  const main = join(home, 'dist/src/cli/main.js');
  writeFileSync(main, readFileSync(main, 'utf8').replace(DESCRIPTION, `${DESCRIPTION} (from dist)`));
  assert.equal(description(home), `${DESCRIPTION} (from dist)`);
});

test('dist/src runs when the bundle or its record is missing, or a module it holds is gone', () => {
  const noRecord = copyProject();
  unlinkSync(join(noRecord, 'dist/bundle/build.json'));
  assert.equal(description(noRecord), DESCRIPTION);

  const noBundle = copyProject();
  rmSync(join(noBundle, 'dist/bundle'), { recursive: true });
  assert.equal(description(noBundle), DESCRIPTION);

  const gone = copyProject();
  const record = JSON.parse(readFileSync(join(gone, 'dist/bundle/build.json'), 'utf8')) as { inputs: string[] };
  assert.ok(record.inputs.includes('dist/src/cli/server.js') && record.inputs.length > 100, `the record lists the bundle's modules: ${record.inputs.length}`);
  unlinkSync(join(gone, 'dist/src/http/app.js'));
  // main.js itself is intact, so --help works from dist/src; the bundle is not used for a tree that lost a file.
  assert.equal(description(gone), DESCRIPTION);
});

test('dist/src runs when another version of a package the bundle holds is installed', () => {
  const home = copyProject();
  const record = JSON.parse(readFileSync(join(home, 'dist/bundle/build.json'), 'utf8')) as { inputs: string[] };
  assert.ok(record.inputs.includes('node_modules/commander/package.json'), 'the bundle holds commander');
  assert.equal(description(home), `${DESCRIPTION} (from the bundle)`);
  const manifest = join(home, 'node_modules/commander/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  writeFileSync(manifest, JSON.stringify({ ...pkg, version: `${pkg.version}-1` }, null, 2));
  assert.equal(description(home), DESCRIPTION);
});
