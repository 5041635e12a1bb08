// Why a database could not be used, in this server's own words. What a database or the network
// answers is never repeated (it could carry anything, and a data source must not become a way to
// read other services): a failure is told by its system error code or its SQLSTATE only.

/** A failure told as a sentence that names the database's address, never the URL or a password. */
export class DatabaseFailure extends Error {}

/** SQLSTATE codes (PostgreSQL's, shared by most databases) this server puts into words. */
const SQLSTATE: Record<string, string> = {
  '28P01': 'refused the user name and password',
  '28000': 'refused the user (no access is granted to it)',
  '3D000': 'has no database of the name the URL gives',
  '42P01': 'has no table of the name the test gives',
  '42601': 'could not read the test statement (a syntax error)',
  '42501': 'does not allow the user to run the test',
  '53300': 'has no connection left for this user or database',
  '57P03': 'is starting up or shutting down',
  '57P01': 'was shut down by its administrator',
  '57014': 'cancelled the test statement (it ran out of time)',
  '08P01': 'broke the protocol',
};

/** System error codes of a failed connection. */
const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'refused the connection (nothing listens on that port)',
  ECONNRESET: 'closed the connection',
  EPIPE: 'closed the connection',
  ETIMEDOUT: 'did not answer in time',
  EHOSTUNREACH: 'cannot be reached (no route to the host)',
  ENETUNREACH: 'cannot be reached (no route to its network)',
  ENOTFOUND: 'has a host name that the name service does not know',
  EAI_AGAIN: 'has a host name that the name service could not look up now',
  EADDRNOTAVAIL: 'has an address this machine cannot connect to',
};

/**
 * What a caller who is not an administrator is told of a data source that cannot use its database:
 * no address, no system error or SQLSTATE (those tell an open port from a closed one, a wrong
 * password from a missing database).
 */
export function undisclosedFailure(dataSource: string): string {
  return `Data source '${dataSource}' cannot use its database; administrators can read why.`;
}

/** A sentence: the database at `where` followed by what went wrong. */
export function reasonOf(err: unknown, where: string, timeoutSeconds: number): string {
  if (err instanceof DatabaseFailure) return err.message;
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  if (code && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('E')) {
    const said = SQLSTATE[code];
    if (said) return `The database at ${where} ${said} (SQLSTATE ${code}).`;
    return code.startsWith('08') ? `The connection to the database at ${where} failed (SQLSTATE ${code}).` : `The database at ${where} failed the request (SQLSTATE ${code}).`;
  }
  if (code && Object.hasOwn(NETWORK, code)) return `The database at ${where} ${NETWORK[code]} (${code}).`;
  const message = typeof e?.message === 'string' ? e.message : '';
  // The PostgreSQL client's own time-outs and closed connections carry no code.
  if (/timeout|timed out/i.test(message)) return `The database at ${where} did not answer within ${timeoutSeconds} s.`;
  if (/terminated|ended unexpectedly|Connection terminated/i.test(message)) return `The database at ${where} closed the connection.`;
  if (code && /^E[A-Z0-9_]{1,30}$/.test(code)) return `The database at ${where} cannot be reached (${code}).`;
  return `The database at ${where} cannot be used (an error without a code).`;
}
