// `appserver-admin restore` checks the whole backup before it writes anything. A hostile file may
// name one archive twice, or name a path both as an archive and as the folder of another: such a
// file is refused by that check with a message naming the archive, and the data directory is left
// as it was (before: it failed only while writing, with the file system's own error).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { dataDirs, runCli } from '../support/cli.js';

const newDir = dataDirs('appserver-restore-clash-');

/** A backup file of these lines with a correct end line (every check but the one under test passes). */
function handMade(lines: unknown[]): string {
  const body = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
  return `${body}${JSON.stringify({ end: true, lines: lines.length, sha256: createHash('sha256').update(body).digest('hex') })}\n`;
}

/** The lines of one archive holding `text`. */
function archive(path: string, text: string): unknown[] {
  return [{ file: path, bytes: Buffer.byteLength(text) }, Buffer.from(text).toString('base64'), { fileEnd: true, sha256: createHash('sha256').update(text).digest('hex') }];
}

test('a backup naming an archive twice, or an archive as the folder of another, is refused before anything is written', { timeout: 60_000 }, async () => {
  const header = { format: 'appserver-admin backup', version: 1, created: '2026-01-01T00:00:00Z', store: 'sqlite', schema: 1, configVersion: 0, secretKey: false };
  const meta = [{ table: 'meta', columns: ['key', 'value'], rows: 1 }, ['created', '2026-01-01T00:00:00Z']];
  const cases: { name: string; lines: unknown[]; error: RegExp }[] = [
    { name: 'twice', lines: [...archive('applications/shop/shop.war', 'one'), ...archive('applications/shop/shop.war', 'two')], error: /line 7: the archive "applications\/shop\/shop\.war" comes twice/ },
    { name: 'file then folder', lines: [...archive('applications/shop', 'one'), ...archive('applications/shop/shop.war', 'two')], error: /"applications\/shop\/shop\.war" lies in "applications\/shop", which is an archive too/ },
    { name: 'folder then file', lines: [...archive('applications/shop/shop.war', 'one'), ...archive('applications/shop', 'two')], error: /"applications\/shop" is also the folder of another archive/ },
  ];
  const work = newDir();
  for (const c of cases) {
    const file = join(work, `${c.name.replace(/\W+/g, '-')}.backup`);
    writeFileSync(file, handMade([header, ...meta, ...c.lines]));
    const target = newDir();
    const run = runCli(['restore', file, '--data-dir', target]);
    const code = await run.exited;
    assert.equal(code, 1, `${c.name}: ${run.stdout()}${run.stderr()}`);
    assert.match(run.stderr(), c.error, c.name);
    assert.deepEqual(readdirSync(target), [], `${c.name}: the data directory was left as it was`);
  }
});
