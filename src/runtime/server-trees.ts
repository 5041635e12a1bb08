// The runtime trees of the running servers, made when first read. A domain with a hundred running
// servers of five hundred applications each starts without building fifty thousand application
// runtimes nobody has asked for yet; a change marks a tree stale and the next read makes it again.
// Which servers run is known apart from their trees, so asking costs no tree.
import type { BeanTree } from '../tree/records.js';

export class ServerTrees {
  /** The running servers (they have a runtime tree, made or to be made), in the order they came up. */
  private readonly running = new Set<string>();
  private readonly made = new Map<string, BeanTree>();

  /** `build` makes a running server's tree as the runtime stands now (undefined: no such server). */
  constructor(private readonly build: (server: string) => BeanTree | undefined) {}

  /** Whether the server runs (has a runtime tree). */
  has(server: string): boolean {
    return this.running.has(server);
  }

  /** The server's runtime tree, made now if it is not made yet; undefined when it does not run. */
  get(server: string): BeanTree | undefined {
    if (!this.running.has(server)) return undefined;
    let tree = this.made.get(server);
    if (!tree) {
      tree = this.build(server);
      if (tree) this.made.set(server, tree);
    }
    return tree;
  }

  /** The tree if it is made already (changes to it can wait otherwise: it will be made from the state). */
  ifMade(server: string): BeanTree | undefined {
    return this.made.get(server);
  }

  /** The server runs, and what its tree shows changed: it is made again when next read. */
  stale(server: string): void {
    this.running.add(server);
    this.made.delete(server);
  }

  /** The server no longer runs. */
  delete(server: string): void {
    this.running.delete(server);
    this.made.delete(server);
  }

  clear(): void {
    this.running.clear();
    this.made.clear();
  }

  /** The running servers. */
  keys(): IterableIterator<string> {
    return this.running.keys();
  }

  get size(): number {
    return this.running.size;
  }

  /** How many trees are made (the others wait for their first read). */
  get madeCount(): number {
    return this.made.size;
  }
}
