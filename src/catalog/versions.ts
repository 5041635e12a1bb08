// Version segments of the management and lifecycle URLs.
import type { ApiVersion } from './model.js';

/**
 * The product's version, as the catalog's data is: the version `latest` names, the current entry
 * of the management version list, and what servers report (`appserverVersion`).
 */
export const CURRENT_VERSION = '12.2.1.3.0';
export const LEGACY_VERSION = '12.2.1.0';
/** The Lifecycle Manager's one version, as the spec lists it (every documented spelling resolves). */
export const LIFECYCLE_VERSION = '12.2.1.0';

// Spellings clients hard-code: the deprecated 12.2.1.0 in its long form, and the other release
// numbers documented for this interface, which all name the current generation of the trees.
const MANAGEMENT: Record<string, ApiVersion> = {
  latest: 'current',
  '12.2.1.3.0': 'current',
  '12.2.1.3': 'current',
  '12.2.1.1.0': 'current',
  '12.2.1.1': 'current',
  '12.2.1.2.0': 'current',
  '12.2.1.4.0': 'current',
  '12.2.1.0': 'legacy',
  '12.2.1.0.0': 'legacy',
};

const LIFECYCLE = new Set(['latest', '12.2.1.3.0', '12.2.1.3', '12.2.1.0', '12.2.1.0.0', '12.2.1.1.0', '12.2.1.2.0', '12.2.1.4.0']);

export function managementVersion(segment: string): ApiVersion | undefined {
  return Object.hasOwn(MANAGEMENT, segment) ? MANAGEMENT[segment] : undefined;
}

export function isLifecycleVersion(segment: string): boolean {
  return LIFECYCLE.has(segment);
}
