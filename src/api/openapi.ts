// The OpenAPI document of each version of the interface: the trees a version serves, with what each
// tree's writer (or the runtime collections' handlers) lets clients change, handed to the builder.
// Built on first request and kept: it depends on the catalog only, which never changes while the
// server runs.
import type { Catalog } from '../catalog/load.js';
import type { ApiVersion, PropDef, TypeDef } from '../catalog/model.js';
import { LIFECYCLE_ROOT } from '../catalog/overlay/lifecycle.js';
import { LIFECYCLE_VERSIONS, MANAGEMENT_VERSION, MANAGEMENT_VERSIONS } from '../catalog/overlay/versions.js';
import { LEGACY_VERSION } from '../catalog/versions.js';
import { READ_ONLY, type TreeAbilities, type TreeSpec } from '../describe/patterns.js';
import type { RuntimeCollections } from '../operations/collections.js';
import type { BeanNode, TreeName } from '../tree/resolve.js';
import { TREE_NAMES } from './trees.js';
import type { TreeWriter } from './writers.js';

export interface DocumentParts {
  catalog: Catalog;
  collections: RuntimeCollections;
  writers: Partial<Record<TreeName, TreeWriter>>;
  /** Whether the deployment service makes the items of this edit tree collection. */
  deploys(owner: TypeDef, prop: PropDef): boolean;
  /** Header naming a request's edit session. */
  sessionHeader: string;
}

/** The version segment each generation's document names in its paths. */
export const DOCUMENT_SEGMENT: Record<ApiVersion, string> = { current: 'latest', legacy: LEGACY_VERSION };

/** Which part of a version a document covers. */
export interface DocumentScope {
  /** Only this tree (a tag of the whole document: `edit`, `domainRuntime`, `lifecycle`...). */
  tree?: string;
  /** Trees the server answering does not serve (a managed server's own listener serves no edit tree). */
  omit?: ReadonlySet<string>;
}

export class InterfaceDocuments {
  private readonly built = new Map<string, Promise<Record<string, unknown>>>();

  constructor(private readonly parts: DocumentParts) {}

  /**
   * The OpenAPI document of a generation of the management URLs (or of one of its trees): built on
   * first request (pausing with `pause` now and then, so the server keeps answering), then kept.
   * Undefined for a tree the version does not have.
   */
  openapi(version: ApiVersion, scope: DocumentScope, pause?: () => Promise<void>): Promise<Record<string, unknown>> | undefined {
    const omit = scope.omit ?? new Set<string>();
    const trees = this.trees(version).filter((t) => !omit.has(t.name) && (scope.tree === undefined || t.name === scope.tree));
    if (trees.length === 0) return undefined;
    const key = `${version}|${scope.tree ?? '*'}|${[...omit].sort().join(',')}`;
    let doc = this.built.get(key);
    if (!doc) {
      const { catalog, sessionHeader } = this.parts;
      const input = { catalog, version, productVersion: version === 'current' ? catalog.productVersion : LEGACY_VERSION, trees, sessionHeader };
      // A tree's document keeps only the components its paths use; the whole one has every type.
      // The generator is loaded by the first document asked for: a start does not load it.
      doc = import('../describe/openapi.js').then(({ buildOpenApi }) => buildOpenApi(scope.tree === undefined ? input : { ...input, onlyUsed: true }, pause));
      this.built.set(key, doc);
      // A failed build is not kept: the next request tries again.
      doc.catch(() => this.built.delete(key));
    }
    return doc;
  }

  /** The names of the trees a version's document has, in order. */
  treeNames(version: ApiVersion): string[] {
    return [...new Set(this.trees(version).map((t) => t.name))];
  }

  /** The trees of a version, as `/management/...` serves them. */
  trees(version: ApiVersion): TreeSpec[] {
    const { catalog } = this.parts;
    const segment = DOCUMENT_SEGMENT[version];
    const domain = catalog.type('appserver.management.configuration.DomainMBean');
    const runtime = this.runtimeAbilities();
    const tree = (name: string, base: string[], root: TypeDef, abilities: TreeAbilities, search: boolean, extra: Partial<TreeSpec> = {}): TreeSpec => ({
      name,
      base,
      root,
      abilities,
      search,
      ...extra,
    });
    return [
      tree('versions', ['appserver'], catalog.type(MANAGEMENT_VERSIONS), READ_ONLY, false),
      tree('versions', ['appserver', segment], catalog.type(MANAGEMENT_VERSION), READ_ONLY, false, { apart: TREE_NAMES }),
      tree('edit', ['appserver', segment, 'edit'], domain, this.writerAbilities(this.parts.writers.edit, true), true, { only: 'edit' }),
      tree('serverConfig', ['appserver', segment, 'serverConfig'], domain, READ_ONLY, true),
      tree('domainConfig', ['appserver', segment, 'domainConfig'], domain, READ_ONLY, true),
      // Each running server's runtime tree is mounted at domainRuntime/serverRuntimes/{server}, with its own search.
      tree('domainRuntime', ['appserver', segment, 'domainRuntime'], catalog.type('appserver.management.runtime.DomainRuntimeMBean'), runtime, true, { mounts: ['serverRuntimes'] }),
      tree('serverRuntime', ['appserver', segment, 'serverRuntime'], catalog.type('appserver.management.runtime.ServerRuntimeMBean'), runtime, true),
      tree('lifecycle', ['lifecycle'], catalog.type(LIFECYCLE_VERSIONS), READ_ONLY, false),
      tree('lifecycle', ['lifecycle', 'latest'], catalog.type(LIFECYCLE_ROOT), this.writerAbilities(this.parts.writers.lifecycle, false), false),
    ];
  }

  /**
   * What a writer takes, asked with a bean of the type in question: the writers judge by type and
   * place alone, so a bean with no record stands for every bean of its type there.
   */
  private writerAbilities(writer: TreeWriter | undefined, edit: boolean): TreeAbilities {
    if (!writer) return READ_ONLY;
    const node = (type: TypeDef, via?: PropDef): BeanNode =>
      ({ root: { editable: true }, type, key: '', identity: [], path: [], parentPath: [], scope: {}, ...(via ? { via } : {}) }) as unknown as BeanNode;
    return {
      creates: (owner, prop) => prop.creators.length > 0 && (writer.creates(node(owner), prop) || (edit && this.parts.deploys(owner, prop))),
      deploys: (owner, prop) => edit && this.parts.deploys(owner, prop),
      updates: (type) => writer.updates(node(type)),
      // Items of creatable children are the ones that can be deleted.
      deletes: (_owner, via, type) => via.creators.length > 0 && writer.deletes(node(type, via)),
    };
  }

  /** The runtime trees take creations and deletions only where a runtime collection has a handler. */
  private runtimeAbilities(): TreeAbilities {
    const { collections } = this.parts;
    return {
      creates: (owner, prop) => prop.shape === 'collection' && collections.handler(owner, prop.name) !== undefined,
      updates: () => false,
      deletes: (owner, via) => via.shape === 'collection' && collections.handler(owner, via.name) !== undefined,
    };
  }
}
