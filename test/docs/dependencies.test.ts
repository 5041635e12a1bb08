// The dependency tree holds no analytics or telemetry package, and no package but the SQLite
// binding runs a script when it is installed (any other that has one is denied it): read from package-lock.json, which `npm ci` installs
// exactly, and from what npm itself reports of the installed tree.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../support/cli.js';

// Packages known to report installs or usage to a third party.
const ANALYTICS = [
  /^@scarf\//,
  /^scarf$/,
  /^@segment\//,
  /^analytics-node$/,
  /^universal-analytics$/,
  /^insight$/,
  /^@amplitude\//,
  /^mixpanel/,
  /^posthog-/,
  /^@posthog\//,
  /^applicationinsights$/,
  /^@sentry\//,
  /^@bugsnag\//,
  /^@datadog\/browser-rum/,
  /^newrelic$/,
  /^opencollective(-postinstall)?$/,
  /^@opencollective\//,
  /^(@[^/]+\/)?telemetry/,
];
const MAY_RUN_SCRIPTS = new Set(['better-sqlite3']);

interface LockEntry {
  name?: string;
  hasInstallScript?: boolean;
  link?: boolean;
}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
/** Every package of the lock file by its installed name (the last node_modules/ segment of its path). */
const entries = Object.entries(lock.packages)
  .filter(([path]) => path !== '')
  .map(([path, entry]) => ({ path, name: entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), entry }));

test('the lock file names no analytics or telemetry package', () => {
  assert.ok(entries.length > 50, `only ${entries.length} packages in the lock file`);
  const found = entries.filter(({ name }) => ANALYTICS.some((re) => re.test(name))).map(({ path }) => path);
  assert.deepEqual(found, []);
});

test('no package but better-sqlite3 runs an install script: any other that has one is denied it', () => {
  // npm runs a dependency's install script only when package.json's allowScripts approves it;
  // esbuild (a build tool) has one that only checks its binary, and is denied it.
  const { allowScripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
  assert.deepEqual(Object.keys(allowScripts).filter((name) => allowScripts[name] === true), [...MAY_RUN_SCRIPTS]);
  const found = entries.filter(({ name, entry }) => entry.hasInstallScript && !MAY_RUN_SCRIPTS.has(name) && allowScripts[name] !== false).map(({ path }) => path);
  assert.deepEqual(found, []);
  assert.ok(entries.some(({ name, entry }) => name === 'better-sqlite3' && entry.hasInstallScript), 'better-sqlite3 is there and builds its binding');
});

test('npm ls shows the same installed tree, without analytics packages', { skip: spawnSync('npm', ['--version']).error ? 'npm is not on the PATH' : false }, () => {
  const run = spawnSync('npm', ['ls', '--all', '--json', '--long=false'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const tree = JSON.parse(run.stdout) as { dependencies?: Record<string, unknown>; problems?: string[] };
  assert.equal(tree.problems, undefined, `npm ls reports problems: ${(tree.problems ?? []).join('; ')}`);
  const names = new Set<string>();
  const walk = (deps: Record<string, unknown> | undefined) => {
    for (const [name, node] of Object.entries(deps ?? {})) {
      names.add(name);
      walk((node as { dependencies?: Record<string, unknown> }).dependencies);
    }
  };
  walk(tree.dependencies);
  assert.ok(names.has('fastify') && names.has('@fastify/swagger-ui'), [...names].slice(0, 20).join(' '));
  assert.deepEqual([...names].filter((n) => ANALYTICS.some((re) => re.test(n))), []);
});
