// Where a JDBC URL points: the vendor, the host and port of its database and, for PostgreSQL, the
// database name. Only the parts this server connects to are taken from the URL; its parameters
// (which may carry a user or a password) are never read, repeated or logged. A host is accepted
// only as a DNS name or an IP address (core/host-name.ts), a port only from 1 to 65535.
import { hostNameProblem, normalHostName } from './host-name.js';

export interface DatabaseAddress {
  /** `postgresql` gets a real pool; every other vendor a check that its port accepts connections. */
  vendor: string;
  /** The product name the data source runtime reports (none where it would be a brand word we never write). */
  product?: string;
  host: string;
  port: number;
  /** The database named by a PostgreSQL URL (undefined: PostgreSQL's default, the user's name). */
  database?: string;
  /**
   * An in-memory embedded database (`jdbc:derby:memory:name`, `jdbc:h2:mem:name`): it lives inside
   * the server that runs the data source, which is simulated in this process, so this process
   * provides it (always reachable; no host, port or network). `host` and `port` are unused then.
   */
  embedded?: true;
}

/** A URL this server cannot connect to, and why (a sentence without the URL itself). */
export interface UnusableUrl {
  problem: string;
}

/** Vendors whose URLs look like `jdbc:<vendor>://host[:port][/...]`, with their default ports. */
const SLASHED: Record<string, { port: number; product: string }> = {
  postgresql: { port: 5432, product: 'PostgreSQL' },
  mysql: { port: 3306, product: 'MySQL' },
  mariadb: { port: 3306, product: 'MariaDB' },
  db2: { port: 50000, product: 'DB2' },
  derby: { port: 1527, product: 'Apache Derby' },
  'informix-sqli': { port: 9088, product: 'Informix' },
  sqlserver: { port: 1433, product: 'Microsoft SQL Server' },
  'h2:tcp': { port: 9092, product: 'H2' },
};

/** The longest URL read; a descriptor holding more is refused rather than parsed. */
const MAX_URL = 4096;

export function parseJdbcUrl(url: unknown): DatabaseAddress | UnusableUrl {
  if (typeof url !== 'string' || url.trim() === '') return { problem: 'it has no URL (JDBCDriverParams url)' };
  if (url.length > MAX_URL) return { problem: `its URL is longer than ${MAX_URL} characters` };
  const lower = url.toLowerCase();
  if (!lower.startsWith('jdbc:')) return { problem: "its URL does not start with 'jdbc:'" };
  const rest = url.slice(5);
  // The thin driver's URLs: the protocol's own prefix, as users write it.
  if (/^oracle:thin:@/i.test(rest)) return thinDriver(rest.slice(rest.indexOf('@') + 1));
  if (/^sybase:tds:/i.test(rest)) return hostPort(rest.slice('sybase:Tds:'.length).split('/')[0]!, 5000, 'Sybase', 'sybase');
  if (/^postgresql:(?!\/\/)/i.test(rest)) {
    // jdbc:postgresql:database, jdbc:postgresql:/ : the local server on the default port.
    const db = rest.slice('postgresql:'.length).split(/[?/]/)[0] ?? '';
    return { vendor: 'postgresql', product: 'PostgreSQL', host: 'localhost', port: 5432, ...(db ? { database: decode(db) } : {}) };
  }
  const vendor = Object.keys(SLASHED).find((v) => lower.startsWith(`jdbc:${v}://`));
  if (vendor) {
    const { port, product } = SLASHED[vendor]!;
    const after = rest.slice(vendor.length + 3);
    // The authority ends at the path, the parameters, or SQL Server's `;property=value` list.
    const authority = after.split(/[/?;]/)[0]!;
    // Several hosts (PostgreSQL, MySQL failover lists): the first is the one checked.
    const first = authority.split(',')[0]!;
    // SQL Server names an instance after a backslash: the port, if any, follows it.
    const withoutInstance = vendor === 'sqlserver' ? first.replace(/\\[^:]*/, '') : first;
    const found = hostPort(withoutInstance, port, product, vendor.split(':')[0]!);
    if ('problem' in found || vendor !== 'postgresql') return found;
    const path = after.slice(authority.length);
    if (path.startsWith('/')) {
      const db = path.slice(1).split('?')[0]!;
      if (db !== '') found.database = decode(db);
    }
    return found;
  }
  const memory = /^(derby:memory:|h2:mem:)([^;?]*)/i.exec(rest);
  if (memory) {
    const derby = memory[1]!.toLowerCase().startsWith('derby');
    return { vendor: derby ? 'derby' : 'h2', product: derby ? 'Apache Derby' : 'H2', host: 'localhost', port: 0, database: memory[2]!, embedded: true };
  }
  if (/^derby:/i.test(rest) || /^h2:(?!tcp:)/i.test(rest) || /^hsqldb:(mem|file):/i.test(rest)) {
    return { problem: 'its URL names an embedded database kept in files, which runs inside an application server process and cannot be reached from here (in-memory ones, jdbc:derby:memory: and jdbc:h2:mem:, are provided by this server)' };
  }
  const name = /^([a-z0-9-]+)[:/]/i.exec(rest)?.[1];
  return { problem: `its URL is of a kind this server does not know how to reach (${name ? `'jdbc:${name}:'` : 'no vendor name'}); the known kinds are postgresql, the thin driver's, mysql, mariadb, sqlserver, db2, derby (network), informix-sqli, sybase:Tds and h2:tcp` };
}

/** `host`, `host:port`, `[v6]` or `[v6]:port`, checked. */
function hostPort(text: string, defaultPort: number, product: string | undefined, vendor: string): DatabaseAddress | UnusableUrl {
  let host = text;
  let port: string | undefined;
  const v6 = /^(\[[^\]]*\])(?::(.*))?$/.exec(text);
  if (v6) {
    host = v6[1]!;
    port = v6[2];
  } else if (text.includes(':')) {
    const i = text.lastIndexOf(':');
    host = text.slice(0, i);
    port = text.slice(i + 1);
  }
  if (host === '') host = 'localhost';
  const problem = hostNameProblem(host);
  if (problem) return { problem: `the host name in its URL ${problem}` };
  let number = defaultPort;
  if (port !== undefined) {
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return { problem: 'the port in its URL is not a number from 1 to 65535' };
    number = Number(port);
  }
  return { vendor, ...(product !== undefined ? { product } : {}), host: normalHostName(host), port: number };
}

/**
 * The thin driver's forms: `host:port:SID`, `host:port/service`, `//host:port/service`, and a
 * connect descriptor `(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=h)(PORT=p))...)`, whose first
 * address is the one checked.
 */
function thinDriver(target: string): DatabaseAddress | UnusableUrl {
  if (target.startsWith('(')) {
    const host = /\(\s*HOST\s*=\s*([^)\s]+)\s*\)/i.exec(target)?.[1];
    const port = /\(\s*PORT\s*=\s*([^)\s]+)\s*\)/i.exec(target)?.[1];
    if (!host) return { problem: 'the connect descriptor in its URL names no HOST' };
    return hostPort(port ? `${host.includes(':') ? `[${host}]` : host}:${port}` : host, 1521, undefined, 'thin');
  }
  const plain = target.replace(/^\/\//, '');
  // host:port:SID or host:port/service; an IPv6 host is in brackets.
  const m = /^(\[[^\]]*\]|[^:/]*)(?::(\d*))?(?:[:/].*)?$/.exec(plain);
  if (!m) return { problem: 'its thin-driver URL is not of the form host:port:SID or //host:port/service' };
  return hostPort(m[2] !== undefined ? `${m[1]}:${m[2]}` : m[1]!, 1521, undefined, 'thin');
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
