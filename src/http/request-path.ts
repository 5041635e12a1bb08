// Splits a request URL into its partition prefix, interface (appserver or lifecycle), version and
// the remaining segments, decoding each segment once (so names may hold an encoded '/').

export interface RequestPath {
  /** Segments before `management` (the partition-scoped form), as sent. */
  prefix: string[];
  /** Partition named by the prefix, if any. */
  partition?: string;
  api: 'appserver' | 'lifecycle';
  /** Version segment, absent for the version list. */
  version?: string;
  /** Segments after the version. */
  rest: string[];
}

export function parseRequestPath(rawUrl: string): RequestPath {
  const q = rawUrl.indexOf('?');
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const raw = path.split('/').slice(1);
  if (raw.length > 0 && raw[raw.length - 1] === '') raw.pop();
  let segments: string[];
  try {
    segments = raw.map((s) => decodeURIComponent(s));
  } catch {
    throw badRequest(`The request path '${path}' is not valid percent-encoding.`);
  }
  const m = segments.indexOf('management');
  const api = segments[m + 1];
  if (m < 0 || (api !== 'appserver' && api !== 'lifecycle')) throw notFound(segments[m < 0 ? 0 : m + 1] ?? path);
  const prefix = segments.slice(0, m);
  let partition: string | undefined;
  if (prefix.length === 1) partition = prefix[0];
  else if (prefix.length === 2 && prefix[0] === 'partitions') partition = prefix[1];
  else if (prefix.length > 0) throw notFound(prefix[0]!);
  const version = segments[m + 2];
  return {
    prefix: raw.slice(0, m),
    ...(partition !== undefined ? { partition } : {}),
    api,
    ...(version !== undefined ? { version } : {}),
    rest: segments.slice(m + 3),
  };
}import { badRequest, notFound } from '../core/problems.js';

