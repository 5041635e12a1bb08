// The modules of a deployed application, read from its archive's descriptors: a web archive's
// servlets (web.xml, plus the container's own JSP and file servlets every web module has), its
// context root and session timeout; an enterprise archive's web and EJB modules (application.xml,
// or the nested archives it holds when it has none); an EJB module's beans (ejb-jar.xml).
// Annotations are not scanned: a servlet or bean declared only by an annotation is not listed.
import type { XMLParser } from 'fast-xml-parser';
import { createRequire } from 'node:module';
import { ARCHIVE_LIMITS, type ArchiveFiles, zip } from './files.js';

export interface ServletInfo {
  name: string;
  className: string;
  urlPatterns: string[];
}

export interface WebModule {
  kind: 'web';
  /** The module's file in its application (`benefits.war`). */
  uri: string;
  /** With its leading slash (`/benefits`). */
  contextRoot: string;
  servlets: ServletInfo[];
  sessionTimeoutSecs: number;
}

export type EjbKind = 'Stateless' | 'Stateful' | 'Singleton' | 'Entity' | 'MessageDriven';

export interface EjbInfo {
  name: string;
  kind: EjbKind;
}

export interface EjbModule {
  kind: 'ejb';
  uri: string;
  ejbs: EjbInfo[];
}

export type Module = WebModule | EjbModule;

/** Servlets the web container adds to every web module. */
export const CONTAINER_SERVLETS: readonly ServletInfo[] = [
  { name: 'JspServlet', className: 'appserver.servlet.JSPServlet', urlPatterns: ['*.jsp', '*.jspx'] },
  { name: 'FileServlet', className: 'appserver.servlet.FileServlet', urlPatterns: ['/'] },
];

/** Session timeout of a web module whose descriptor says none (seconds). */
export const DEFAULT_SESSION_TIMEOUT = 3600;

const LISTS = new Set(['servlet', 'servlet-mapping', 'url-pattern', 'module', 'session', 'entity', 'message-driven', 'context-root']);

let parser: XMLParser | undefined;

/** The descriptors' parser, loaded when the first archive is read (the package's one-file build, not its many modules: a start that reads no archive does not load it). */
function descriptorParser(): XMLParser {
  if (parser) return parser;
  const { XMLParser: Parser } = createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser');
  parser = new Parser({
    ignoreAttributes: true,
    removeNSPrefix: true,
    parseTagValue: false,
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    trimValues: true,
    isArray: (name) => LISTS.has(name),
  });
  return parser;
}

type Json = Record<string, unknown>;

/** A descriptor as plain objects, or undefined when absent, too large or not plain XML. */
function descriptor(files: ArchiveFiles, name: string): Json | undefined {
  const bytes = files.bytes(name, ARCHIVE_LIMITS.descriptorBytes);
  if (!bytes) return undefined;
  let text = Buffer.from(bytes).toString('utf8');
  // Old descriptors name their DTD; it is never read. One with an internal subset (entities) is refused.
  const doctype = /<!DOCTYPE[^>[]*>/i.exec(text);
  if (doctype) text = text.slice(0, doctype.index) + text.slice(doctype.index + doctype[0].length);
  if (/<!(DOCTYPE|ENTITY)/i.test(text)) return undefined;
  try {
    const parsed = descriptorParser().parse(text) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as Json) : undefined;
  } catch {
    return undefined;
  }
}

const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/** `/benefits` from `benefits`, `/benefits/`, `/` kept. */
function contextRoot(root: string): string {
  const trimmed = root.trim().replace(/^\/+|\/+$/g, '');
  return `/${trimmed}`;
}

/** A web module from its files (`WEB-INF/web.xml`); `root` is its context root. */
export function webModule(files: ArchiveFiles, uri: string, root: string): WebModule {
  const webApp = obj(descriptor(files, 'WEB-INF/web.xml')?.['web-app']);
  const patterns = new Map<string, string[]>();
  for (const m of list(webApp['servlet-mapping'])) {
    const name = text(obj(m)['servlet-name']);
    if (name === '') continue;
    patterns.set(name, [...(patterns.get(name) ?? []), ...list(obj(m)['url-pattern']).map(text).filter((p) => p !== '')]);
  }
  const declared: ServletInfo[] = [];
  const seen = new Set<string>();
  for (const s of list(webApp.servlet)) {
    const name = text(obj(s)['servlet-name']);
    if (name === '' || seen.has(name) || declared.length >= 1000) continue;
    seen.add(name);
    const className = text(obj(s)['servlet-class']) || (text(obj(s)['jsp-file']) ? 'appserver.servlet.JSPServlet' : '');
    declared.push({ name, className, urlPatterns: patterns.get(name) ?? [] });
  }
  const container = CONTAINER_SERVLETS.filter((c) => !seen.has(c.name));
  const minutes = Number(text(obj(webApp['session-config'])['session-timeout']));
  return {
    kind: 'web',
    uri,
    contextRoot: contextRoot(root),
    servlets: [...declared, ...container],
    sessionTimeoutSecs: Number.isFinite(minutes) && minutes > 0 ? Math.min(minutes * 60, 2_147_483_647) : DEFAULT_SESSION_TIMEOUT,
  };
}

/** An EJB module from its files (`META-INF/ejb-jar.xml`). */
export function ejbModule(files: ArchiveFiles, uri: string): EjbModule {
  const beans = obj(obj(descriptor(files, 'META-INF/ejb-jar.xml')?.['ejb-jar'])['enterprise-beans']);
  const ejbs: EjbInfo[] = [];
  const add = (name: string, kind: EjbKind) => {
    if (name !== '' && ejbs.length < 1000 && !ejbs.some((e) => e.name === name)) ejbs.push({ name, kind });
  };
  for (const s of list(beans.session)) {
    const type = text(obj(s)['session-type']);
    add(text(obj(s)['ejb-name']), type === 'Stateful' || type === 'Singleton' ? type : 'Stateless');
  }
  for (const e of list(beans.entity)) add(text(obj(e)['ejb-name']), 'Entity');
  for (const m of list(beans['message-driven'])) add(text(obj(m)['ejb-name']), 'MessageDriven');
  return { kind: 'ejb', uri, ejbs };
}

/** The entries of a module nested in an enterprise archive: a zip entry, or a folder of an exploded one. */
function nested(files: ArchiveFiles, uri: string): ArchiveFiles | undefined {
  const packed = files.bytes(uri, ARCHIVE_LIMITS.nestedBytes);
  if (packed) {
    try {
      return zip(packed);
    } catch {
      return undefined;
    }
  }
  const prefix = `${uri.replace(/\/+$/, '')}/`;
  const names = files.names.filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length));
  if (names.length === 0) return undefined;
  return { names, bytes: (name, limit) => files.bytes(prefix + name, limit) };
}

const baseName = (uri: string) => uri.replace(/\/+$/, '').split('/').pop()!.replace(/\.[^.]*$/, '');

/** The modules of an enterprise archive. */
export function enterpriseModules(files: ArchiveFiles): Module[] {
  const application = descriptor(files, 'META-INF/application.xml')?.application;
  const out: Module[] = [];
  if (application !== undefined) {
    for (const m of list(obj(application).module)) {
      const web = obj(obj(m).web);
      const webUri = text(web['web-uri']);
      const ejbUri = text(obj(m).ejb);
      if (webUri !== '') {
        const files2 = nested(files, webUri);
        const root = text(list(web['context-root'])[0]) || baseName(webUri);
        out.push(files2 ? webModule(files2, webUri, root) : { kind: 'web', uri: webUri, contextRoot: contextRoot(root), servlets: [...CONTAINER_SERVLETS], sessionTimeoutSecs: DEFAULT_SESSION_TIMEOUT });
      } else if (ejbUri !== '') {
        const files2 = nested(files, ejbUri);
        out.push(files2 ? ejbModule(files2, ejbUri) : { kind: 'ejb', uri: ejbUri, ejbs: [] });
      }
      if (out.length >= 100) break;
    }
    return out;
  }
  // No application.xml: every web archive at the top is a web module, every jar with an EJB descriptor an EJB module.
  const tops = new Set(files.names.map((n) => n.split('/')[0]!).filter((n) => /\.(war|jar)$/i.test(n)));
  for (const uri of [...tops].slice(0, 100)) {
    const files2 = nested(files, uri);
    if (!files2) continue;
    if (/\.war$/i.test(uri)) out.push(webModule(files2, uri, baseName(uri)));
    else if (files2.names.includes('META-INF/ejb-jar.xml')) out.push(ejbModule(files2, uri));
  }
  return out;
}
