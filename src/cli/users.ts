// `users unlock [USER]` and `users reset-password USER`: the way back in when every administrator
// waits out a back-off or has lost a password. They work on the data directory's store (or the
// PostgreSQL store named), with no server running, or beside one: a server sharing a PostgreSQL
// store takes the change at once; a server on SQLite takes it when it starts again. Each change is
// written to the audit trail as made offline.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import { hashPassword } from '../security/passwords.js';
import { passwordProblem } from '../operations/security-realm.js';

/** The address the audit trail names for a change made with these commands. */
export const OFFLINE_ADDRESS = 'offline (appserver-admin users)';

export interface OfflineStore {
  dataDir: string;
  /** A postgres:// URL; SQLite in the data directory when absent. */
  store?: string;
}

async function withDomainStore<T>(where: OfflineStore, fn: (store: Store) => Promise<T>): Promise<T> {
  if (!where.store && !existsSync(join(where.dataDir, 'domain.db'))) throw new Error(`${where.dataDir} holds no domain (no domain.db)`);
  const store = openStore(where.dataDir, where.store);
  try {
    await store.open();
    if ((await store.getMeta('created')) === undefined) throw new Error(`${store.description} holds no domain`);
    return await fn(store);
  } finally {
    await store.close();
  }
}

const audit = (store: Store, action: string, bean: string, detail: string) =>
  store.appendAudit([{ time: Date.now(), user: null, address: OFFLINE_ADDRESS, action, bean, outcome: 'success', detail }]);

/** Forgets the failed logins and back-offs of one user name (and an address of that spelling), or of everyone. */
export async function unlockUsers(where: OfflineStore, user?: string): Promise<string> {
  return withDomainStore(where, async (store) => {
    if (user === undefined) {
      const n = await store.clearAllLoginFailures();
      await audit(store, 'unlock', 'users', `Every failed login and back-off forgotten (${n} user name${n === 1 ? '' : 's'} and addresses).`);
      return `Forgot the failed logins of ${n} user name${n === 1 ? '' : 's'} and addresses: every login is tried again at once.`;
    }
    const u = await store.clearLoginFailures('user', user);
    const a = await store.clearLoginFailures('address', user);
    await audit(store, 'unlock', `users/${user}`, `Failed logins and back-off of '${user}' forgotten.`);
    return u || a ? `Forgot the failed logins of '${user}': its logins are tried again at once.` : `'${user}' had no failed logins recorded; nothing to forget.`;
  });
}

/** Sets a user's password (and forgets its failed logins); the user must exist. */
export async function resetPassword(where: OfflineStore, user: string, password: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) throw new Error(`the new password ${problem}`);
  return withDomainStore(where, async (store) => {
    const found = (await store.users()).find((u) => u.name === user);
    if (!found) throw new Error(`there is no user '${user}' in ${store.description}`);
    await store.putUser({ ...found, hash: await hashPassword(password) });
    await store.clearLoginFailures('user', user);
    await audit(store, 'resetUserPassword', `users/${user}`, `The password of '${user}' was set offline; its failed logins were forgotten.`);
    return `Set the password of '${user}' and forgot its failed logins.`;
  });
}

/** A password from a file: its first line (a trailing line break is not part of it). */
export function passwordFromFile(file: string): string {
  return firstLine(readFileSync(file, 'utf8'), file);
}

function firstLine(text: string, from: string): string {
  const line = text.split(/\r?\n/, 1)[0] ?? '';
  if (line === '') throw new Error(`${from} holds no password (its first line is empty)`);
  return line;
}

/** A password from standard input: typed at a terminal without echo (twice), or the first line piped in. */
export async function passwordFromStdin(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) {
      text += String(chunk);
      if (text.includes('\n') || text.length > 64 * 1024) break;
    }
    return firstLine(text, 'standard input');
  }
  const first = await prompt('New password: ');
  const again = await prompt('Repeat it: ');
  if (first !== again) throw new Error('the two passwords typed differ');
  if (first === '') throw new Error('no password typed');
  return first;
}

/** Reads one line from the terminal without showing what is typed. */
function prompt(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let typed = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new Error('interrupted'));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.on('data', onData);
  });
}
