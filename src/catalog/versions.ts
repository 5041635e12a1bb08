// Product versions and the version segments of the management and lifecycle URLs.
import type { ApiVersion } from './model.js';

/**
 * The product versions a domain may have, oldest first: each has its own bean types (the catalog
 * of that version answers for the domain).
 */
export const PRODUCT_VERSIONS = ['12.2.1.3.0', '12.2.1.4.0', '14.1.1.0.0', '14.1.2.0.0', '15.1.1.0.0'] as const;

/**
 * The version of a domain created without one: 12.2.1.4.0, the most deployed release (the last
 * patch set of the 12.2.1 line, the base most tools are tested against). Its catalog is the one
 * stored whole; the others are stored as differences from it.
 */
export const DEFAULT_PRODUCT_VERSION = '12.2.1.4.0';

/** The version of a domain created before domains recorded one: they were all 12.2.1.3.0. */
export const UNRECORDED_PRODUCT_VERSION = '12.2.1.3.0';

export const LEGACY_VERSION = '12.2.1.0';
/** The Lifecycle Manager's one version, as the spec lists it (every documented spelling resolves). */
export const LIFECYCLE_VERSION = '12.2.1.0';

export function isProductVersion(version: string): boolean {
  return (PRODUCT_VERSIONS as readonly string[]).includes(version);
}

/** -1, 0 or 1 as dotted version `a` is older than, the same as, or newer than `b`. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

// Spellings clients hard-code: the deprecated 12.2.1.0 in its long form, and the other release
// numbers documented for this interface. A release keeps the segments of older releases working;
// a segment naming a release newer than the domain's names nothing.
const LEGACY_SPELLINGS = new Set(['12.2.1.0', '12.2.1.0.0']);
const RELEASES = ['12.2.1.1.0', '12.2.1.2.0', ...PRODUCT_VERSIONS];
/** Every spelling of a release (five numbers, or four) and the release it names. */
const SPELLINGS = new Map<string, string>(RELEASES.flatMap((r) => [[r, r] as [string, string], [r.replace(/\.0$/, ''), r] as [string, string]]));

/**
 * The version segments a client of a domain of `productVersion` may use, as the API reference page
 * offers them: `latest`, the domain's release and each older one (newest first: each names the
 * current generation), then the deprecated generation.
 */
export function versionSegments(productVersion: string): string[] {
  const releases = PRODUCT_VERSIONS.filter((v) => compareVersions(v, productVersion) <= 0).reverse();
  return ['latest', ...releases, LEGACY_VERSION];
}

/** The URL generation a management version segment names for a domain of `productVersion`, or undefined. */
export function managementVersion(segment: string, productVersion: string): ApiVersion | undefined {
  if (segment === 'latest') return 'current';
  if (LEGACY_SPELLINGS.has(segment)) return 'legacy';
  const release = SPELLINGS.get(segment);
  return release !== undefined && compareVersions(release, productVersion) <= 0 ? 'current' : undefined;
}

const LIFECYCLE = new Set(['latest', '12.2.1.3.0', '12.2.1.3', '12.2.1.0', '12.2.1.0.0', '12.2.1.1.0', '12.2.1.2.0', '12.2.1.4.0']);

export function isLifecycleVersion(segment: string): boolean {
  return LIFECYCLE.has(segment);
}

/**
 * The build of each product version as a server names it: date and number. The 12.2.1.3.0,
 * 12.2.1.4.0 and 14.1.1.0.0 ones are the general-availability builds as those servers log them.
 * Those of 14.1.2.0.0 and 15.1.1.0.0 are made up: no reference material at hand names them (the
 * shared reference, stored documentation, pages, issues and code were searched for the servers'
 * version line). Their dates stand in the month of each release and their numbers continue the
 * known sequence; docs/compatibility.md says so.
 */
const BUILDS: Record<string, string> = {
  '12.2.1.3.0': 'Thu Aug 17 13:39:49 PDT 2017 1882952',
  '12.2.1.4.0': 'Thu Sep 12 04:04:29 GMT 2019 1974621',
  '14.1.1.0.0': ' Thu Mar 26 03:15:09 GMT 2020 2000885',
  '14.1.2.0.0': ' Tue Dec 10 08:00:00 GMT 2024 2100000',
  '15.1.1.0.0': ' Tue Jun 10 08:00:00 GMT 2025 2200000',
};

/**
 * A server's own name for its version (`appserverVersion`): product, version, build date and build
 * number, as `AppServer Server 14.1.1.0.0  Thu Mar 26 03:15:09 GMT 2020 2000885` (the 14 releases
 * put two spaces after the version, as the product does).
 */
export function productVersionText(version: string): string {
  return `AppServer Server ${version} ${BUILDS[version] ?? ''}`.trimEnd();
}

/**
 * The product version a domain recorded as `domainVersion` runs as here: that version when it is
 * one of PRODUCT_VERSIONS, else the newest one not above it (the oldest for an older domain).
 */
export function productVersionFor(domainVersion: string): string {
  if (isProductVersion(domainVersion)) return domainVersion;
  if (!/^\d+(\.\d+)*$/.test(domainVersion)) return DEFAULT_PRODUCT_VERSION;
  const below = PRODUCT_VERSIONS.filter((v) => compareVersions(v, domainVersion) <= 0);
  return below.at(-1) ?? PRODUCT_VERSIONS[0];
}
