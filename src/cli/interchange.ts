// `init --from FILE` and `export --format xml|model`: a data directory made from config.xml (with
// its descriptors) or a model, and a data directory's domain written out, without a server.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { type Catalog, loadCatalog } from '../catalog/load.js';
import { DEFAULT_PRODUCT_VERSION, PRODUCT_VERSIONS, UNRECORDED_PRODUCT_VERSION, isProductVersion, productVersionFor } from '../catalog/versions.js';
import { givenKey } from '../config/secret-key.js';
import { Secrets } from '../config/secrets.js';
import { badRequest } from '../core/problems.js';
import { readStoredTree } from '../domain/bootstrap.js';
import {
  type Finding,
  type ForeignSecrets,
  type ImportInput,
  type InterchangeFormat,
  type SecretOutput,
  applySecurity,
  exportDomain,
  importDomain,
  resealTree,
  securityOf,
} from '../interchange/index.js';
import { MAX_FILE_BYTES } from '../interchange/xml.js';
import { generatePassword } from '../security/passwords.js';
import { openStore } from '../store/open.js';
import { secretKeySource } from './data-dir.js';
import { initDataDir } from './server.js';

/** Reads a file an import names, refusing one larger than an import takes before reading it. */
/** Most bytes one import reads in all: config.xml and every descriptor it names. */
export const MAX_IMPORT_BYTES = 128 * 1024 * 1024;

function readLimited(path: string): Buffer {
  const size = statSync(path).size;
  if (size > MAX_FILE_BYTES) throw badRequest(`${path} is ${size} bytes long; an import reads files of at most ${MAX_FILE_BYTES} bytes (32 MiB).`);
  return readFileSync(path);
}

/** What an import file is, by its extension. */
export function formatOf(file: string): InterchangeFormat {
  const ext = extname(file).toLowerCase();
  if (ext === '.xml') return 'xml';
  if (ext === '.yaml' || ext === '.yml') return 'model';
  throw new Error(`${file}: an import reads config.xml (.xml) or a model (.yaml, .yml), not '${ext || 'a file without extension'}'`);
}

/** The import input of a file: for config.xml, descriptors are read from its folder and never outside it. */
export function importInput(file: string): ImportInput {
  let text: Buffer;
  try {
    text = readLimited(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code) throw new Error(`cannot read ${file}: ${(err as Error).message}`);
    throw err;
  }
  const format = formatOf(file);
  if (format === 'model') return { format, file, text };
  const folder = realpathSync(dirname(resolve(file)));
  // Bytes read by this import in all (config.xml and its descriptors), each file read once.
  let total = text.length;
  const read = new Map<string, Buffer>();
  return {
    format,
    file,
    text,
    readDescriptor: (path) => {
      const full = resolve(folder, path);
      if (!existsSync(full)) return undefined;
      // A link may not lead out of the folder either.
      const real = realpathSync(full);
      if (real !== folder && !real.startsWith(folder + sep)) throw badRequest(`${join(dirname(file), path)} leads outside the folder of ${file}; it is not read.`);
      const known = read.get(real);
      if (known) return known;
      const size = statSync(real).size;
      if (total + size > MAX_IMPORT_BYTES) {
        throw badRequest(`${join(dirname(file), path)} (${size} bytes) would take the import past ${MAX_IMPORT_BYTES} bytes (128 MiB) read in all; it is not read, and nothing is imported.`);
      }
      const bytes = readLimited(real);
      total += bytes.length;
      read.set(real, bytes);
      return bytes;
    },
  };
}

export interface InitFromOptions {
  store?: string;
  /** The product version of the new domain (default: the one the file's domain version names). */
  productVersion?: string;
  secretKeyFile?: string;
  foreignSecrets?: ForeignSecrets;
  secretPlaceholder?: string;
}

/** Creates a data directory from config.xml or a model; returns what `initDataDir` returns plus the findings. */
export async function initFrom(file: string, dataDir: string, opts: InitFromOptions): Promise<Awaited<ReturnType<typeof initDataDir>> & { findings: Finding[]; servers: number }> {
  // The file says its domain's version (config.xml's domain-version, a model's domainVersion): read
  // with the default version's types first, then again with that version's when it is another.
  const fileVersion = (catalog: Catalog) => {
    const imported = importDomain(catalog, importInput(file), { secrets: new Secrets(randomBytes(32)) });
    const said = imported.config.bean('')?.values.domainVersion;
    return typeof said === 'string' ? said : undefined;
  };
  const said = opts.productVersion === undefined ? fileVersion(loadCatalog()) : undefined;
  const productVersion = opts.productVersion ?? (said !== undefined ? productVersionFor(said) : DEFAULT_PRODUCT_VERSION);
  if (!isProductVersion(productVersion)) throw new Error(`--product-version takes ${PRODUCT_VERSIONS.join(', ')}, not '${productVersion}'`);
  const catalog = loadCatalog(undefined, productVersion);
  // The import is read before anything is created: a refused file leaves no data directory behind.
  // Its secrets are sealed with the key the domain will have when one is given, else with a
  // provisional key and sealed again once the new domain's key is made.
  const given = givenKey(secretKeySource(dataDir, opts.secretKeyFile !== undefined ? { secretKeyFile: opts.secretKeyFile } : {}), () => undefined);
  const provisionalKey = given?.key ?? randomBytes(32);
  const provisional = new Secrets(provisionalKey);
  const imported = importDomain(catalog, importInput(file), {
    secrets: provisional,
    ...(opts.foreignSecrets ? { foreignSecrets: opts.foreignSecrets } : {}),
    ...(opts.secretPlaceholder !== undefined ? { secretPlaceholder: opts.secretPlaceholder } : {}),
  });
  const findings = [...imported.findings];
  // The domain's configuration names the version it runs as (a note says so when the file named another).
  const root = imported.config.bean('')!;
  const was = root.values.domainVersion;
  if (was !== undefined && was !== productVersion) {
    findings.push({ severity: 'info', file, path: 'domain-version', message: `the domain version ${String(was)} runs as ${productVersion}${opts.productVersion === undefined ? ', the nearest version this server has' : ', as --product-version says'}` });
  }
  root.values.domainVersion = productVersion;
  root.values.configurationVersion = productVersion;
  const created = await initDataDir(
    dataDir,
    {
      build: (secrets) => {
        // A given key is the domain's key (the domain is refused otherwise): only a provisional one needs resealing.
        if (!given) resealTree(catalog, imported.config, provisional, secrets);
        return imported.config;
      },
      ...(imported.users.adminUser !== undefined ? { adminUser: imported.users.adminUser } : {}),
      ...(imported.users.adminPassword !== undefined ? { adminPassword: imported.users.adminPassword } : {}),
      after: async (domain) => {
        findings.push(...(await applySecurity(domain.security, imported.users, file, generatePassword)));
      },
    },
    opts.store,
    { productVersion, ...(opts.secretKeyFile !== undefined ? { secretKeyFile: opts.secretKeyFile } : {}) },
  );
  return { ...created, findings, servers: imported.config.itemNames('servers').length };
}

export interface ExportOptions {
  format: InterchangeFormat;
  store?: string;
  out?: string;
  secrets?: SecretOutput;
}

/** Writes the domain of a data directory (or store) without starting a server; returns the findings and what was written. */
export async function exportDataDir(dataDir: string, opts: ExportOptions): Promise<{ findings: Finding[]; written: string[]; stdout?: string }> {
  if (!opts.store && !existsSync(join(dataDir, 'domain.db'))) throw new Error(`${dataDir} holds no domain (no domain.db): nothing to export`);
  const store = openStore(dataDir, opts.store);
  let config;
  let users;
  let groups;
  let productVersion: string;
  try {
    await store.open();
    if ((await store.getMeta('created')) === undefined) throw new Error(`${store.description} holds no domain: nothing to export`);
    productVersion = (await store.getMeta('productVersion')) ?? UNRECORDED_PRODUCT_VERSION;
    config = await readStoredTree(store, 'config');
    users = await store.users();
    groups = await store.groups();
  } finally {
    await store.close();
  }
  const result = exportDomain(loadCatalog(undefined, productVersion), config, securityOf(users, groups), { format: opts.format, ...(opts.secrets ? { secrets: opts.secrets } : {}) });
  const findings = [...result.findings];
  if (!opts.out) {
    const [main, ...rest] = result.files;
    if (rest.length > 0) {
      findings.push({
        severity: 'warning',
        file: 'config.xml',
        path: '/domain',
        message: `${rest.length} descriptor files are not written to standard output (${rest.map((f) => f.path).join(', ')}): name a file with --out to write them beside it.`,
      });
    }
    return { findings, written: [], stdout: main!.text };
  }
  const written: string[] = [];
  const folder = dirname(resolve(opts.out));
  for (const [i, f] of result.files.entries()) {
    const target = i === 0 ? resolve(opts.out) : resolve(folder, f.path);
    if (relative(folder, target).startsWith('..')) throw new Error(`the descriptor ${f.path} would be written outside ${folder}`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, f.text);
    written.push(target);
  }
  return { findings, written };
}
