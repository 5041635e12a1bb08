// The example test of the control interface in docs/test-control.md, run as written against a server started with
// the control interface (APPSERVER_URL points the example at it).
import { after } from 'node:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { startControlServer } from '../support/control.js';
import { ROOT } from '../support/cli.js';

// The example reads APPSERVER_URL as it loads, so the server starts first.
const srv = await startControlServer({ manual: false });
process.env.APPSERVER_URL = srv.origin;
const dir = mkdtempSync(join(tmpdir(), 'appserver-readme-'));

after(async () => {
  await srv.stop();
  rmSync(dir, { recursive: true, force: true });
});

// The example is that page's code block; its few type annotations are stripped by hand.
const readme = readFileSync(join(ROOT, 'docs', 'test-control.md'), 'utf8');
const block = /A complete test \(node:test and fetch[^\n]*\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
assert.ok(block, 'docs/test-control.md holds the example');
const js = block.replace('(method: string, url: string, body?: unknown)', '(method, url, body)').replace('started.location!', 'started.location');
const file = join(dir, 'readme-example.mjs');
writeFileSync(file, js);
await import(pathToFileURL(file).href);
