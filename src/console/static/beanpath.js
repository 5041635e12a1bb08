// Where a bean lives, for the console: a path of segments whose first names the tree. The same path
// gives the REST URL (each segment encoded once), the console's deep link (#browse/...) and the
// identity a reference carries (the segments after the tree's name).
import { BASE, LIFECYCLE } from './lib.js';

/** The trees the Browse view shows, in the order it shows them. */
export const TREES = ['domainConfig', 'edit', 'serverConfig', 'domainRuntime', 'serverRuntime', 'lifecycle'];

/** The Lifecycle Manager's root: an interface of its own, beside the management trees. */

/** The trees whose beans an edit session changes (through the edit tree, under the same path). */
export const CONFIG_TREES = ['domainConfig', 'edit'];

export function restUrl(segments) {
  if (!isBeanPath(segments)) throw new Error(`Not a bean's path: ${segments.join('/')}`);
  const [root, ...rest] = segments;
  const base = root === 'lifecycle' ? LIFECYCLE : `${BASE}/${encodeURIComponent(root)}`;
  return [base, ...rest.map((s) => encodeURIComponent(s))].join('/');
}

export const hashOf = (segments) => `#browse/${segments.map((s) => encodeURIComponent(s)).join('/')}`;

/** A key for maps of nodes: the encoded path (a name may hold a slash). */
export const keyOf = (segments) => segments.map((s) => encodeURIComponent(s)).join('/');

/** A path the console may ask for: below one of its trees, with no dot segment (a URL would resolve it away). */
const isBeanPath = (segments) => TREES.includes(segments[0]) && segments.every((s) => s !== '.' && s !== '..');

/** The path a `#browse/...` hash names; [] for the view without a bean (or a hash naming none). */
export function segmentsOfHash(hash) {
  const rest = hash.replace(/^#?browse\/?/, '');
  if (!rest) return [];
  try {
    const segments = rest.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
    return isBeanPath(segments) ? segments : [];
  } catch {
    return [];
  }
}

/** The path of a URL the server returned (a link's href), or undefined when it is no bean's. */
export function segmentsOfHref(href) {
  const path = new URL(href, location.origin).pathname;
  const decode = (rest) => rest.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
  if (path.startsWith(`${LIFECYCLE}/`) || path === LIFECYCLE) return ['lifecycle', ...decode(path.slice(LIFECYCLE.length))];
  if (path.startsWith(`${BASE}/`)) return decode(path.slice(BASE.length));
  return undefined;
}

/** The bean a reference value names (an identity array, or {identity}), in the tree `root`. */
export function referencedPath(root, value) {
  const identity = Array.isArray(value) ? value : value && Array.isArray(value.identity) ? value.identity : undefined;
  return identity ? [root, ...identity.map(String)] : undefined;
}
