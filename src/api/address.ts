// Where a request points: its interface, its partition scope, its version and the segments below
// it. The HTTP adapter makes one from a URL; in-process callers write one directly.

export interface Address {
  /** Segments before `management` (the partition-scoped form), as they appear in hrefs. */
  prefix: string[];
  /** Partition named by the prefix, if any. */
  partition?: string;
  api: 'appserver' | 'lifecycle';
  /** Version segment, absent for the version list. */
  version?: string;
  /** Segments after the version (the tree, then the path in it). */
  rest: string[];
}

/** The address of a path of the current management interface (`['serverConfig', 'servers', 'ms1']`). */
export function management(...rest: string[]): Address {
  return { prefix: [], api: 'appserver', version: 'latest', rest };
}

/** The address of a path of the Lifecycle Manager (`['environments', 'e1']`). */
export function lifecycle(...rest: string[]): Address {
  return { prefix: [], api: 'lifecycle', version: 'latest', rest };
}
