// Round 3, item 17: an import that named one 25 MB descriptor 30 times read it 30 times (33 s and
// 2.7 GB) before refusing. Now each descriptor file is read once: a file named a second time is
// refused, naming it and where it was first named, without being read again; and an import reads
// at most 128 MiB in all (config.xml and its descriptors), refusing the file that would pass the
// bound before reading it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadCatalog } from '../../src/catalog/load.js';
import { Secrets } from '../../src/config/secrets.js';
import { MAX_IMPORT_BYTES, importInput } from '../../src/cli/interchange.js';
import { isProblem } from '../../src/core/problems.js';
import { importDomain } from '../../src/interchange/index.js';
import { ROOT } from '../support/cli.js';

const catalog = loadCatalog();
const secrets = new Secrets(randomBytes(32));
const FIXTURE = join(ROOT, 'test/interchange/fixtures/realistic/config');
const dir = mkdtempSync(join(tmpdir(), 'appserver-round3-17-'));

after(() => rmSync(dir, { recursive: true, force: true }));

test('item 17: a descriptor named 30 times is read once and the import is refused, naming it', () => {
  mkdirSync(join(dir, 'jdbc'), { recursive: true });
  mkdirSync(join(dir, 'jms'), { recursive: true });
  copyFileSync(join(FIXTURE, 'jdbc/OrdersDS-4711-jdbc.xml'), join(dir, 'jdbc/OrdersDS-4711-jdbc.xml'));
  copyFileSync(join(FIXTURE, 'jms/ordersmodule-jms.xml'), join(dir, 'jms/ordersmodule-jms.xml'));
  const resources = Array.from(
    { length: 30 },
    (_, i) => `  <jdbc-system-resource>\n    <name>Copy${i}</name>\n    <descriptor-file-name>jdbc/OrdersDS-4711-jdbc.xml</descriptor-file-name>\n  </jdbc-system-resource>\n`,
  ).join('');
  const config = readFileSync(join(FIXTURE, 'config.xml'), 'utf8').replace('</domain>', `${resources}</domain>`);
  const file = join(dir, 'config.xml');
  writeFileSync(file, config);
  const input = importInput(file);
  assert.equal(input.format, 'xml');
  let reads = 0;
  const counted = { ...input, readDescriptor: (path: string) => (reads++, input.format === 'xml' ? input.readDescriptor(path) : undefined) };
  let message = '';
  try {
    importDomain(catalog, counted, { secrets });
    assert.fail('the import was not refused');
  } catch (err) {
    assert.ok(isProblem(err), String(err));
    message = err.message;
  }
  // The fixture's own two descriptors, once each.
  assert.equal(reads, 2);
  assert.match(message, /the descriptor file .*jdbc\/OrdersDS-4711-jdbc\.xml is named again \(first at .*config\.xml line \d+\); each descriptor file belongs to one resource and is read once/);
  assert.equal(message.match(/is named again/g)?.length, 30);
});

test('item 17: an import reads at most 128 MiB in all, refusing the file that would pass it before reading it', () => {
  const big = join(dir, 'big');
  mkdirSync(big);
  writeFileSync(join(big, 'config.xml'), '<domain/>');
  // Sparse files of 30 MiB: four fit, the fifth would pass the bound.
  const names = ['a.xml', 'b.xml', 'c.xml', 'd.xml', 'e.xml'];
  for (const n of names) {
    const fd = openSync(join(big, n), 'w');
    ftruncateSync(fd, 30 * 1024 * 1024);
    closeSync(fd);
  }
  const input = importInput(join(big, 'config.xml'));
  assert.ok(input.format === 'xml');
  for (const n of names.slice(0, 4)) assert.equal(input.readDescriptor(n)?.length, 30 * 1024 * 1024);
  // A file read before costs nothing more.
  assert.equal(input.readDescriptor('a.xml')?.length, 30 * 1024 * 1024);
  assert.throws(
    () => input.readDescriptor('e.xml'),
    (err: Error) => isProblem(err) && new RegExp(`e\\.xml \\(31457280 bytes\\) would take the import past ${MAX_IMPORT_BYTES} bytes \\(128 MiB\\) read in all`).test(err.message),
  );
});
