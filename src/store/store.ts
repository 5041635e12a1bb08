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

/** An edit session as stored: its description and its pending changes (JSON), in order. */
export interface StoredSession {
  name: string;
  info: unknown;
  changes: [string, unknown][];
}

/** What one activation changed, for the record readable through the API. */
export interface ActivationRecord {
  id: number;
  version: number;
  editSession: string;
  user: string;
  startTime: number;
  endTime: number;
  restartRequired: boolean;
  changes: unknown[];
}

export interface ActivationWrite {
  /** Configuration changes applied to the 'config' tree. */
  config: BeanChanges;
  /** The session after activation (lock released, no changes). */
  session: StoredSession;
  record: Omit<ActivationRecord, 'id'>;
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

  sessions(): Promise<StoredSession[]>;
  putSession(session: StoredSession): Promise<void>;
  deleteSession(name: string): Promise<void>;
  /** Applies an activation in one transaction: configuration, session, record, version. */
  activate(write: ActivationWrite): Promise<number>;
  /** The most recent activations, newest first. */
  activations(limit: number): Promise<ActivationRecord[]>;

  /** Small JSON documents (runtime desired states and the like). */
  getState<T>(key: string): Promise<T | undefined>;
  setState(key: string, value: unknown): Promise<void>;
}
