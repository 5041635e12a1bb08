// Where the client commands find the server and the credentials: flags first, then the environment
// (APPSERVER_URL, APPSERVER_USER, APPSERVER_PASSWORD), then a configuration file (--config, else
// APPSERVER_CONFIG, else ~/.config/appserver-admin/config.json). A file holding a password is used
// only when no one else may read it (mode 0600 or stricter): the password is refused, not leaked.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ClientOptions } from '../../client/index.js';
import { UsageError } from './exit-codes.js';

export const DEFAULT_URL = 'http://127.0.0.1:7001';

export interface ConnectionFlags {
  url?: string;
  user?: string;
  password?: string;
  config?: string;
  apiVersion?: string;
  requestTimeout?: number;
}

interface ConfigFile {
  url?: string;
  user?: string;
  password?: string;
  version?: string;
}

const KEYS = new Set(['url', 'user', 'password', 'version']);

export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.APPSERVER_CONFIG) return env.APPSERVER_CONFIG;
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'appserver-admin', 'config.json');
}

/** Reads the configuration file; a missing default file is no error, a named one is. */
export function readConfigFile(path: string, named: boolean): ConfigFile {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    if (named) throw new UsageError(`the configuration file ${path} does not exist`);
    return {};
  }
  if (!stat.isFile()) throw new UsageError(`the configuration file ${path} is not a file`);
  if (stat.size > 64 * 1024) throw new UsageError(`the configuration file ${path} is larger than 64 KiB`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`the configuration file ${path} is not JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`the configuration file ${path} must hold a JSON object`);
  const file = parsed as Record<string, unknown>;
  for (const [k, v] of Object.entries(file)) {
    if (!KEYS.has(k)) throw new UsageError(`the configuration file ${path} has an unknown key '${k}' (known: url, user, password, version)`);
    if (typeof v !== 'string') throw new UsageError(`the configuration file ${path}: '${k}' must be a string`);
  }
  if (file.password !== undefined && process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
    throw new UsageError(`the configuration file ${path} holds a password but others may read it (mode ${mode}): run chmod 600 ${path}`);
  }
  return file as ConfigFile;
}

export function clientOptions(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): ClientOptions {
  const file = readConfigFile(flags.config ?? defaultConfigPath(env), flags.config !== undefined || Boolean(env.APPSERVER_CONFIG));
  const pick = (flag: string | undefined, envName: string, fromFile: string | undefined) => flag ?? (env[envName] !== undefined && env[envName] !== '' ? env[envName] : undefined) ?? fromFile;
  const url = pick(flags.url, 'APPSERVER_URL', file.url) ?? DEFAULT_URL;
  const user = pick(flags.user, 'APPSERVER_USER', file.user);
  const password = pick(flags.password, 'APPSERVER_PASSWORD', file.password);
  const version = pick(flags.apiVersion, 'APPSERVER_API_VERSION', file.version);
  if (password !== undefined && user === undefined) throw new UsageError('a password was given without a user (--user, APPSERVER_USER or "user" in the configuration file)');
  return {
    url,
    ...(user !== undefined ? { user, password: password ?? '' } : {}),
    ...(version !== undefined ? { version } : {}),
    ...(flags.requestTimeout !== undefined ? { requestTimeoutMs: flags.requestTimeout * 1000 } : {}),
    requestedBy: 'appserver-admin-cli',
  };
}
