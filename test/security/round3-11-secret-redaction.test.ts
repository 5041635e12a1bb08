// Round 3, item 11: a Lifecycle Manager password sent with the wrong JSON type (a number, an array,
// an object) was written in clear to the audit record and the log, because the refusal repeats the
// value and only strings under secret-named keys were masked. Secrets are now found by the name
// they are sent under, whatever their type: a key named like a secret, or a name/value pair whose
// name is (`{"name": "password", "value": ...}`), even where the message shows them escaped or cut.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { AUTHN, type Client, type RuntimeServer, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
let admin: Client;
let running = false;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  running = true;
});

after(async () => {
  if (running) await srv.stop(true);
  rmSync(srv.dataDir, { recursive: true, force: true });
});

interface AuditRecord {
  action: string;
  bean: string;
  outcome: string;
  detail: string;
}

async function newestRecords(n: number): Promise<AuditRecord[]> {
  const r = await admin.get('domainRuntime/auditRecords?links=none');
  assert.equal(r.status, 200, r.text);
  return r.json.items.slice(0, n);
}

/** Everything the server wrote to the log files of its data directory. */
function logText(): string {
  const dir = join(srv.dataDir, 'logs');
  if (!existsSync(dir)) return '';
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(readFileSync(join(d, e.name), 'latin1'));
    }
  };
  walk(dir);
  return out.join('\n');
}

const LCM = () => `${srv.origin}/management/lifecycle/latest`;
const LONG = `Long-Secret-${'q'.repeat(90)}`;

// Each case: a request refused for its type, and the secret it carried (as it would be printed).
const CASES: { what: string; path: () => string; body: Record<string, unknown>; secrets: string[] }[] = [
  {
    what: 'a Lifecycle Manager property password as a number',
    path: () => `${LCM()}/runtimes`,
    body: { name: 'r11a', type: 'wls', hostName: '127.0.0.1', port: 7101, properties: [{ name: 'username', value: 'admin' }, { name: 'password', value: 73519864 }] },
    secrets: ['73519864'],
  },
  {
    what: 'a Lifecycle Manager property password as an array',
    path: () => `${LCM()}/runtimes`,
    body: { name: 'r11b', type: 'wls', hostName: '127.0.0.1', port: 7102, properties: [{ name: 'password', value: ['Arr-Secret-5e1'] }] },
    secrets: ['Arr-Secret-5e1'],
  },
  {
    what: 'a Lifecycle Manager property password as an object, with quotes that JSON escapes',
    path: () => `${LCM()}/runtimes`,
    body: { name: 'r11c', type: 'wls', hostName: '127.0.0.1', port: 7103, properties: [{ name: 'password', value: { x: 'Obj"Secret\\77' } }] },
    secrets: ['Obj"Secret\\77', 'Obj\\"Secret\\\\77'],
  },
  {
    what: 'a long password as an array, cut short in the message',
    path: () => `${LCM()}/runtimes`,
    body: { name: 'r11d', type: 'wls', hostName: '127.0.0.1', port: 7104, properties: [{ name: 'password', value: [LONG] }] },
    secrets: ['Long-Secret-qqq'],
  },
  {
    what: 'a data source driver property password as a number',
    path: () => 'edit/JDBCSystemResources/partition1-ds/JDBCResource/JDBCDriverParams/properties/properties',
    body: { name: 'password', value: 90817263 },
    secrets: ['90817263'],
  },
  {
    what: 'a user password as a number',
    path: () => `${AUTHN}/createUser`,
    body: { userName: 'u11', password: 64209753, description: '' },
    secrets: ['64209753'],
  },
];

test('round 3, item 11: secrets sent with the wrong JSON type never reach the audit records or the log', async () => {
  for (const c of CASES) {
    const r = await admin.post(c.path(), c.body);
    assert.ok(r.status >= 400 && r.status < 500, `${c.what}: ${r.status} ${r.text.slice(0, 300)}`);
    assert.equal(typeof r.json?.status, 'number', `${c.what}: a JSON error`);
    const [record] = await newestRecords(1);
    assert.ok(record, c.what);
    assert.match(record.outcome, /failure|refused/, `${c.what}: ${JSON.stringify(record)}`);
    for (const s of c.secrets) assert.ok(!record.detail.includes(s), `${c.what}: the audit record holds '${s}': ${record.detail}`);
  }
  // The audit records go to the log files too (flushed when the server stops).
  running = false;
  await srv.stop(false);
  const log = logText();
  assert.match(log, /createUser/, 'the log holds the audit records');
  for (const c of CASES) for (const s of c.secrets) assert.ok(!log.includes(s), `${c.what}: the log holds '${s}'`);
});
