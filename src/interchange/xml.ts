// Reading and writing XML safely. Input is refused, with the file and line, when it is too large,
// not UTF-8, declares another encoding, carries a document type declaration (no DTD is read and no
// entity is expanded: only the five predefined ones and character references), is not well formed,
// has several roots or nests deeper than MAX_DEPTH. The reader gives every element its line.
import { isUtf8 } from 'node:buffer';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { badRequest } from '../core/problems.js';

/** Largest file an import reads. */
export const MAX_FILE_BYTES = 32 * 1024 * 1024;
/** Deepest element nesting an import reads (config.xml needs about ten). */
export const MAX_DEPTH = 64;

export interface XNode {
  /** The name as written, prefix included (`sec:name`). */
  name: string;
  /** The name without its namespace prefix. */
  local: string;
  /** Attributes, values decoded, by name as written. */
  attrs: Map<string, string>;
  children: XNode[];
  /** The text directly inside the element, decoded (CDATA included). */
  text: string;
  line: number;
}

/** The text of a file as UTF-8, or a refusal naming the file and where it goes wrong. */
export function utf8Text(input: Buffer | string, file: string): string {
  const size = typeof input === 'string' ? Buffer.byteLength(input) : input.length;
  if (size > MAX_FILE_BYTES) throw badRequest(`${file} is ${size} bytes long; an import reads files of at most ${MAX_FILE_BYTES} bytes (32 MiB).`);
  if (typeof input === 'string') return input.replace(/^\uFEFF/, '');
  if (!isUtf8(input)) {
    // The longest valid prefix ends within a character of the first bad byte.
    let lo = 0;
    let hi = input.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (isUtf8(input.subarray(0, mid))) lo = mid;
      else hi = mid - 1;
    }
    const line = input.subarray(0, lo).toString('utf8').split('\n').length;
    throw badRequest(`${file} is not valid UTF-8: the bytes after offset ${lo} (line ${line}) are not a UTF-8 character.`);
  }
  return input.toString('utf8').replace(/^\uFEFF/, '');
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Offsets of line starts, for finding an element's line quickly. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], index: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the predefined entities and character references; anything else is refused. */
function decode(raw: string, file: string, line: number): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&([^;&\s]*);?/g, (whole, name: string) => {
    if (!whole.endsWith(';')) throw badRequest(`${file}:${line}: a '&' that starts no entity reference (write &amp;).`);
    if (PREDEFINED[name]) return PREDEFINED[name]!;
    const m = /^#(?:x([0-9a-fA-F]{1,6})|(\d{1,7}))$/.exec(name);
    const code = m ? Number.parseInt(m[1] ?? m[2]!, m[1] ? 16 : 10) : Number.NaN;
    if (Number.isNaN(code)) throw badRequest(`${file}:${line}: the entity '&${name};' is not one of XML's predefined entities; no other entity is expanded.`);
    if (!xmlChar(code)) throw badRequest(`${file}:${line}: the character reference '&${name};' names a character XML does not allow.`);
    return String.fromCodePoint(code);
  });
}

function xmlChar(code: number): boolean {
  return code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
}

const TEXT = '#text';
const CDATA = '#cdata';
const ATTRS = ':@';

/** Parses one XML file into elements with lines; refuses hostile or malformed input with a clear message. */
export function parseXml(input: Buffer | string, file: string): XNode {
  const text = utf8Text(input, file);
  const declaration = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(text);
  if (declaration && !/^utf-?8$/i.test(declaration[1]!)) {
    throw badRequest(`${file} declares the encoding ${declaration[1]}; an import reads UTF-8 files only.`);
  }
  const doctype = /<!(DOCTYPE|ENTITY)/i.exec(text);
  if (doctype) {
    throw badRequest(`${file}:${lineAt(text, doctype.index)}: a document type declaration (<!${doctype[1]} ...>) is not accepted: no DTD is read and no entity is expanded.`);
  }
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (valid !== true) throw badRequest(`${file}:${valid.err.line}: the file is not well-formed XML: ${valid.err.msg}`);
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    processEntities: false,
    htmlEntities: false,
    cdataPropName: CDATA,
    captureMetaData: true,
    maxNestedTags: MAX_DEPTH,
    ignoreDeclaration: true,
    ignorePiTags: true,
  });
  let parsed: unknown[];
  try {
    parsed = parser.parse(text) as unknown[];
  } catch (err) {
    const message = (err as Error).message;
    if (/nested/i.test(message)) throw badRequest(`${file}: elements are nested more than ${MAX_DEPTH} levels deep.`);
    throw badRequest(`${file}: the file is not well-formed XML: ${message}`);
  }
  const starts = lineStarts(text);
  const meta = XMLParser.getMetaDataSymbol() as unknown as symbol;
  const convert = (node: Record<string | symbol, unknown>): XNode => {
    const name = Object.keys(node).find((k) => k !== ATTRS)!;
    const start = (node[meta] as { startIndex?: number } | undefined)?.startIndex ?? 0;
    const line = lineOf(starts, start);
    const attrs = new Map<string, string>();
    for (const [k, v] of Object.entries((node[ATTRS] as Record<string, string> | undefined) ?? {})) attrs.set(k, decode(String(v), file, line));
    const out: XNode = { name, local: name.slice(name.indexOf(':') + 1), attrs, children: [], text: '', line };
    for (const child of node[name] as Record<string, unknown>[]) {
      if (TEXT in child) out.text += decode(String(child[TEXT]), file, line);
      else if (CDATA in child) out.text += (child[CDATA] as Record<string, unknown>[]).map((c) => String(c[TEXT] ?? '')).join('');
      else out.children.push(convert(child));
    }
    return out;
  };
  const roots = (parsed as Record<string, unknown>[]).filter((n) => !(TEXT in n));
  if (roots.length !== 1) throw badRequest(`${file}: an XML file holds exactly one root element, not ${roots.length}.`);
  const stray = (parsed as Record<string, unknown>[]).find((n) => TEXT in n && String(n[TEXT]).trim() !== '');
  if (stray) throw badRequest(`${file}: text outside the root element.`);
  return convert(roots[0] as Record<string | symbol, unknown>);
}

/** Why a text cannot be written in XML 1.0, or undefined when it can. */
export function xmlTextProblem(text: string): string | undefined {
  for (const ch of text) {
    if (!xmlChar(ch.codePointAt(0)!)) return `holds the character U+${ch.codePointAt(0)!.toString(16).padStart(4, '0').toUpperCase()}, which XML cannot carry`;
  }
  return undefined;
}

function escapeText(text: string): string {
  return text.replace(/[&<>\r]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&#13;'));
}

function escapeAttr(text: string): string {
  return text.replace(/[&<>"\r\n\t]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\r': '&#13;', '\n': '&#10;', '\t': '&#9;' })[c]!);
}

/** Writes indented XML, two spaces a level; an element closed with nothing inside becomes `<x/>`. */
export class XmlWriter {
  private readonly out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  private readonly opened: { line: number; tag: string }[] = [];

  private tag(name: string, attrs: [string, string][]): string {
    return name + attrs.map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('');
  }

  private pad(): string {
    return '  '.repeat(this.opened.length);
  }

  open(name: string, attrs: [string, string][] = []): void {
    const tag = this.tag(name, attrs);
    this.out.push(`${this.pad()}<${tag}>`);
    this.opened.push({ line: this.out.length - 1, tag });
  }

  close(name: string): void {
    const { line, tag } = this.opened.pop()!;
    if (line === this.out.length - 1) this.out[line] = `${this.pad()}<${tag}/>`;
    else this.out.push(`${this.pad()}</${name}>`);
  }

  leaf(name: string, text: string, attrs: [string, string][] = []): void {
    const tag = this.tag(name, attrs);
    this.out.push(text === '' ? `${this.pad()}<${tag}/>` : `${this.pad()}<${tag}>${escapeText(text)}</${name}>`);
  }

  toString(): string {
    return `${this.out.join('\n')}\n`;
  }
}
