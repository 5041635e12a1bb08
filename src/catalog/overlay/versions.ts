// The entry points of both interfaces as bean types: the version lists at /management/appserver
// and /management/lifecycle, the management version (links to its five trees and currentUser),
// and the caller's identity.
import type { CatalogType } from '../format.js';
import { LIFECYCLE_ROOT } from './lifecycle.js';

const NS = 'appserver.management.rest.bean.model';
export const MANAGEMENT_VERSIONS = `${NS}.Versions`;
export const MANAGEMENT_VERSION = `${NS}.Version`;
export const CURRENT_USER = `${NS}.CurrentUser`;
export const LIFECYCLE_VERSIONS = 'appserver.management.rest.lifecycle.Versions';

const STRING = 'java.lang.String';
const DOMAIN = 'appserver.management.configuration.DomainMBean';

/** A version list: its versions in place, and a `current` link to the one `latest` names. */
const versionList = (item: string): CatalogType => ({
  s: 'Versions',
  kind: 'rest',
  p: [
    { n: 'versions', t: item, rel: 'c', a: 1, inline: 1, at: ['*'] },
    { n: 'current', t: item, rel: 'r', link: 1 },
  ],
});

export const versionTypes: Record<string, CatalogType> = {
  [MANAGEMENT_VERSIONS]: versionList(MANAGEMENT_VERSION),
  [LIFECYCLE_VERSIONS]: versionList(LIFECYCLE_ROOT),
  [MANAGEMENT_VERSION]: {
    s: 'Version',
    kind: 'rest',
    p: [
      { n: 'version', t: STRING },
      { n: 'isLatest', t: 'boolean' },
      { n: 'lifecycle', t: STRING },
      // The trees of this version: each is served as a tree of its own.
      { n: 'edit', t: DOMAIN, rel: 'c' },
      { n: 'domainConfig', t: DOMAIN, rel: 'c' },
      { n: 'domainRuntime', t: 'appserver.management.runtime.DomainRuntimeMBean', rel: 'c' },
      { n: 'serverRuntime', t: 'appserver.management.runtime.ServerRuntimeMBean', rel: 'c' },
      { n: 'serverConfig', t: DOMAIN, rel: 'c' },
      { n: 'currentUser', t: CURRENT_USER, rel: 'c' },
    ],
  },
  [CURRENT_USER]: {
    s: 'CurrentUser',
    kind: 'rest',
    p: [
      { n: 'partitionId', t: STRING },
      { n: 'partitionName', t: STRING },
      { n: 'user', t: STRING },
      // Ours: the caller's roles (Admin, Deployer, Operator, Monitor), for consoles and scripts.
      { n: 'roles', t: STRING, a: 1 },
    ],
  },
};
