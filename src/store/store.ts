// The storage interface. Everything durable goes through it; SQLite is the embedded default.
// Methods are asynchronous so that a networked database can implement the same interface.

/** One bean of a stored tree. `collection`/`name` place items in their collection; `ord` keeps their order. */
export interface StoredBean {
  key: string;
  collection: string | null;
  name: string | null;
  ord: number;
  type: string;
  values: Record<string, unknown>;
}

export interface StoredUser {
  name: string;
  hash: string;
  description: string;
}

export interface StoredGroup {
  name: string;
  description: string;
  members: string[];
}

export interface BeanChanges {
  put: StoredBean[];
  /** Keys whose bean and whole subtree are removed. */
  remove: string[];
}

export interface Store {
  /** Creates or migrates the schema. */
  open(): Promise<void>;
  close(): Promise<void>;

  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;

  /** Every bean of a tree ('config' is the activated configuration). */
  loadTree(tree: string): Promise<StoredBean[]>;
  /** Applies changes to a tree atomically. */
  writeTree(tree: string, changes: BeanChanges): Promise<void>;

  users(): Promise<StoredUser[]>;
  putUser(user: StoredUser): Promise<void>;
  deleteUser(name: string): Promise<void>;
  groups(): Promise<StoredGroup[]>;
  putGroup(group: StoredGroup): Promise<void>;
  deleteGroup(name: string): Promise<void>;

  /** Small JSON documents (runtime desired states and the like). */
  getState<T>(key: string): Promise<T | undefined>;
  setState(key: string, value: unknown): Promise<void>;
}
