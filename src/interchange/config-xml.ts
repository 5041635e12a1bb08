// The product's domain configuration file, config.xml, and the system resource descriptors it
// names (`<descriptor-file-name>jdbc/ds1-jdbc.xml</descriptor-file-name>`, relative to the folder
// of config.xml). Elements are the bean property names hyphenated (names.ts), lists repeat the
// element in the singular, references are names (several: comma-separated), items of a type other
// than the child's default say so with `xsi:type="unix-machineType"`, JMS module entities carry
// their name as an attribute (`<queue name="q1">`), and encrypted values are the `-encrypted` twin.
// Namespaces are read by local name only; the ones written are the product's, mapped to appserver.
import type { Catalog } from '../catalog/load.js';
import type { PropDef, TypeDef } from '../catalog/model.js';
import { badRequest } from '../core/problems.js';
import type { BeanTree } from '../tree/records.js';
import { Assembler, type BeanRef } from './assemble.js';
import { type Location, below } from './findings.js';
import { type Naming, defaultChildType, hyphenate, subtypeNamed, xsiTypeOf } from './names.js';
import { writeSecret } from './secrets.js';
import { type BeanView, type ExportContext, childrenOf, descriptorChild, referenceNames, scalarText, valuesOf } from './walk.js';
import { MAX_DEPTH, type XNode, XmlWriter, parseXml, xmlTextProblem } from './xml.js';

const DOMAIN_TYPE = 'appserver.management.configuration.DomainMBean';
/** JMS module entities: their name is an attribute. */
const NAMED_ENTITY = 'appserver.j2ee.descriptor.wl.NamedEntityBean';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const NS_BASE = 'http://xmlns.appserver.com/appserver';
/** Descriptor root elements that are not their type's name hyphenated. */
const DESCRIPTOR_ROOTS: Record<string, string> = { JMS: 'appserver-jms' };
/** Folders of descriptor files, by the first word of their system resource's type. */
const DESCRIPTOR_FOLDERS: Record<string, string> = { wldf: 'diagnostics' };
/** Descriptor files one config.xml may name. */
export const MAX_DESCRIPTORS = 100_000;

/** Reads a descriptor file named by config.xml, by its path relative to config.xml's folder. */
export type DescriptorReader = (path: string) => Buffer | string | undefined;

export interface XmlFile {
  /** Path relative to the folder of config.xml (`config.xml`, `jdbc/ds1-jdbc.xml`). */
  path: string;
  text: string;
}

function rootElementOf(type: TypeDef): string {
  return DESCRIPTOR_ROOTS[type.short] ?? hyphenate(type.short);
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Whether a descriptor path stays inside config.xml's folder: relative, no `..`, no drive or backslash. */
function safeDescriptorPath(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path) || path.includes('\0')) return false;
  return path.split('/').every((s) => s !== '..' && s !== '');
}

class ConfigXmlReader {
  private descriptors = 0;
  /** Descriptor files read so far (normalized path -> where config.xml first named it). */
  private readonly named = new Map<string, Location>();

  constructor(
    private readonly catalog: Catalog,
    private readonly naming: Naming,
    private readonly asm: Assembler,
    private readonly readDescriptor: DescriptorReader,
    /** How descriptor files are named in messages: `config/` + their path. */
    private readonly folderLabel: string,
  ) {}

  readDomain(root: XNode, file: string): void {
    const loc: Location = { file, path: `/${root.local}`, line: root.line };
    if (root.local !== 'domain') throw badRequest(`${file}:${root.line}: the root element is <${root.name}>, not <domain>: this is not a domain configuration file.`);
    const ref = this.asm.root(this.catalog.type(DOMAIN_TYPE));
    this.readBean(root, ref, loc, false);
  }

  private readBean(el: XNode, ref: BeanRef, loc: Location, isItem: boolean, depth = 0): void {
    if (depth > MAX_DEPTH) {
      this.asm.refuse(loc, `beans are nested more than ${MAX_DEPTH} levels deep.`);
      return;
    }
    for (const [attr] of el.attrs) {
      if (attr === 'xmlns' || attr.startsWith('xmlns:') || attr.startsWith('xsi:') || (isItem && attr === 'name')) continue;
      this.asm.warn(loc, `not imported: the attribute ${attr}="${el.attrs.get(attr)}" means nothing to a ${ref.type.short}.`);
    }
    if (el.children.length > 0 && el.text.trim() !== '') this.asm.warn(loc, `not imported: text beside the elements of a ${ref.type.short} (${JSON.stringify(el.text.trim().slice(0, 40))}).`);
    const names = this.naming.of(ref.type);
    const lists = new Map<PropDef, { items: string[]; loc: Location }>();
    const descriptorProp = descriptorChild(ref.type, this.catalog);
    for (const child of el.children) {
      const named = child.attrs.get('name') ?? child.children.find((c) => c.local === 'name')?.text;
      const cloc = below(loc, named !== undefined && child.children.length > 0 ? `${child.local}[${named}]` : child.local, '/', child.line);
      const slot = names.find(child.local);
      if (!slot) {
        this.asm.warn(cloc, `not imported: a ${ref.type.short} has no element <${child.local}>.`);
        continue;
      }
      const p = slot.prop;
      if (isItem && p.name === ref.type.keyProp) {
        const name = this.asm.tree.bean(ref.key)!.values[p.name];
        if (child.text !== name) this.asm.warn(cloc, `the item is named '${String(name)}' by its attribute, so <${child.local}>${child.text}</${child.local}> is not imported.`);
        continue;
      }
      if (p.shape === 'scalar' && p.name === 'descriptorFileName' && descriptorProp) {
        this.readDescriptorFile(child.text.trim(), ref, descriptorProp, cloc);
        continue;
      }
      if ((p.shape === 'scalar' || p.shape === 'reference') && child.children.length > 0 && p.valueKind !== 'properties') {
        this.asm.warn(cloc, `not imported: <${child.local}> holds elements, but '${p.name}' of ${ref.type.short} is a value.`);
        continue;
      }
      switch (p.shape) {
        case 'scalar':
          if (slot.encrypted || p.encrypted) this.asm.secret(ref, p, child.text, cloc);
          else if (p.valueKind === 'properties') this.asm.value(ref, p, this.readProperties(child, cloc), cloc);
          else if (p.array) this.collect(lists, p, [child.text], cloc);
          else this.asm.value(ref, p, child.text, cloc);
          break;
        case 'reference':
          this.collect(lists, p, child.text.split(',').map((s) => s.trim()).filter((s) => s !== ''), cloc);
          break;
        case 'singleton': {
          const type = this.childType(child, p, cloc);
          const bean = type && this.asm.singleton(ref, p, type, cloc);
          if (bean) this.readBean(child, bean, cloc, false, depth + 1);
          break;
        }
        case 'collection': {
          const type = slot.creator ?? this.childType(child, p, cloc);
          if (!type) break;
          const keyElement = child.children.find((c) => this.naming.of(type).find(c.local)?.prop.name === type.keyProp);
          const name = child.attrs.get('name') ?? keyElement?.text;
          if (name === undefined) {
            this.asm.warn(cloc, `not imported: this ${type.short} has no name (neither a name attribute nor a <${hyphenate(type.keyProp)}> element).`);
            break;
          }
          const item = this.asm.item(ref, p, name, type, cloc);
          if (item) this.readBean(child, item, cloc, true, depth + 1);
          break;
        }
      }
    }
    for (const [p, { items, loc: at }] of lists) {
      if (p.shape === 'reference') this.asm.reference(ref, p, items, at);
      else this.asm.value(ref, p, items, at);
    }
  }

  private collect(lists: Map<PropDef, { items: string[]; loc: Location }>, p: PropDef, items: string[], loc: Location): void {
    const list = lists.get(p);
    if (list) list.items.push(...items);
    else lists.set(p, { items: [...items], loc });
  }

  /** `<x><property><name>k</name><value>v</value></property>...</x>` as an object. */
  private readProperties(el: XNode, loc: Location): Record<string, string> {
    const out = Object.create(null) as Record<string, string>;
    for (const entry of el.children) {
      const k = entry.children.find((c) => c.local === 'name' || c.local === 'key')?.text;
      const v = entry.children.find((c) => c.local === 'value')?.text ?? '';
      if (k === undefined) this.asm.warn(below(loc, entry.local, '/', entry.line), 'not imported: a property entry without a <name>.');
      else out[k] = v;
    }
    return out;
  }

  /** The type an element stands for: its `xsi:type`, else the child's default type. */
  private childType(el: XNode, p: PropDef, loc: Location): TypeDef | undefined {
    const xsi = [...el.attrs].find(([k]) => k === 'xsi:type' || k.endsWith(':type'))?.[1];
    if (xsi === undefined) return defaultChildType(this.catalog, p);
    const type = subtypeNamed(this.catalog, p, xsi);
    if (!type) this.asm.warn(loc, `not imported: '${p.name}' cannot be of the type ${xsi}.`);
    return type;
  }

  private readDescriptorFile(path: string, owner: BeanRef, prop: PropDef, loc: Location): void {
    if (!safeDescriptorPath(path)) {
      this.asm.refuse(loc, `the descriptor file '${path}' is not a path inside the folder of config.xml; only relative paths without '..' are read.`);
      return;
    }
    if (++this.descriptors > MAX_DESCRIPTORS) {
      this.asm.refuse(loc, `config.xml names more than ${MAX_DESCRIPTORS} descriptor files.`);
      return;
    }
    const label = `${this.folderLabel}${path}`;
    // Each descriptor is read once: a file named again is refused before it is read again.
    const key = path.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.').join('/');
    const first = this.named.get(key);
    if (first) {
      this.asm.refuse(loc, `the descriptor file ${label} is named again (first at ${first.file} line ${first.line}); each descriptor file belongs to one resource and is read once.`);
      return;
    }
    this.named.set(key, loc);
    const content = this.readDescriptor(path);
    if (content === undefined) {
      this.asm.warn(loc, `not imported: the descriptor file ${label} was not found, so '${prop.name}' of this ${owner.type.short} is missing.`);
      return;
    }
    const root = parseXml(content, label);
    const type = defaultChildType(this.catalog, prop);
    const expected = rootElementOf(type);
    const rootLoc: Location = { file: label, path: `/${root.local}`, line: root.line };
    if (root.local !== expected && !root.local.endsWith(`-${expected.split('-').pop()}`)) {
      this.asm.warn(rootLoc, `not imported: the root element is <${root.local}>, not <${expected}>.`);
      return;
    }
    const bean = this.asm.singleton(owner, prop, type, rootLoc);
    if (bean) this.readBean(root, bean, rootLoc, false);
  }
}

/** Reads config.xml and its descriptors into the assembler. */
export function readConfigXml(catalog: Catalog, naming: Naming, asm: Assembler, text: Buffer | string, file: string, readDescriptor: DescriptorReader): void {
  const root = parseXml(text, file);
  const folder = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
  new ConfigXmlReader(catalog, naming, asm, readDescriptor, folder).readDomain(root, file);
}

// ---------------------------------------------------------------------------------------------
// Writing

class ConfigXmlWriter {
  readonly files: XmlFile[] = [];
  private readonly taken = new Set<string>();

  constructor(private readonly ctx: ExportContext) {}

  writeDomain(tree: BeanTree): void {
    const record = tree.bean('');
    if (!record) throw new Error('the domain has no root bean');
    const w = new XmlWriter();
    const loc: Location = { file: 'config.xml', path: '/domain' };
    w.open('domain', [
      ['xmlns', `${NS_BASE}/domain`],
      ['xmlns:xsi', XSI],
      ['xsi:schemaLocation', `${NS_BASE}/domain ${NS_BASE}/1.0/domain.xsd`],
    ]);
    this.writeContent(w, { key: '', type: this.ctx.catalog.type(record.type), record, typeGiven: false }, loc, false);
    w.close('domain');
    this.files.unshift({ path: 'config.xml', text: w.toString() });
  }

  private text(loc: Location, p: PropDef, text: string): string | undefined {
    const problem = xmlTextProblem(text);
    if (!problem) return text;
    this.ctx.findings.push({ severity: 'warning', ...loc, message: `not exported: the value of '${p.name}' ${problem}.` });
    return undefined;
  }

  private writeContent(w: XmlWriter, bean: BeanView, loc: Location, inDescriptor: boolean): void {
    const names = this.ctx.naming.of(bean.type);
    if (bean.name !== undefined && !(inDescriptor && this.ctx.catalog.isA(bean.type, NAMED_ENTITY))) {
      w.leaf(hyphenate(bean.type.keyProp), bean.name);
    }
    for (const [p, value] of valuesOf(this.ctx, bean, loc)) {
      const at = below(loc, names.element(p), '/');
      if (p.encrypted) {
        const text = writeSecret(value, this.ctx.secrets, `${bean.key}:${p.name}`);
        if (text === undefined) this.ctx.findings.push({ severity: 'warning', ...at, message: `not exported: '${p.name}' holds a value that is not sealed.` });
        else w.leaf(names.element(p, true), text);
      } else if (p.shape === 'reference') {
        const refs = referenceNames(this.ctx, bean.key, p, value, at);
        if (refs.length > 0) w.leaf(names.element(p), refs.join(','));
      } else if (p.valueKind === 'properties' && value !== null && typeof value === 'object') {
        w.open(names.element(p));
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          const key = this.text(at, p, k);
          const val = this.text(at, p, String(v));
          if (key === undefined || val === undefined) continue;
          w.open('property');
          w.leaf('name', key);
          w.leaf('value', val);
          w.close('property');
        }
        w.close(names.element(p));
      } else {
        for (const item of p.array && Array.isArray(value) ? value : [value]) {
          const text = scalarText(p, item);
          if (text === undefined) {
            this.ctx.findings.push({ severity: 'warning', ...at, message: `not exported: '${p.name}' holds ${JSON.stringify(item)}, which has no text form.` });
            continue;
          }
          const safe = this.text(at, p, text);
          if (safe !== undefined) w.leaf(names.element(p), safe);
        }
      }
    }
    const descriptor = inDescriptor ? undefined : descriptorChild(bean.type, this.ctx.catalog);
    for (const group of childrenOf(this.ctx, bean.key, bean.type)) {
      const element = names.element(group.prop);
      for (const child of group.beans) {
        const cloc = below(loc, child.name !== undefined ? `${element}[${child.name}]` : element, '/');
        if (group.prop === descriptor) {
          w.leaf('descriptor-file-name', this.writeDescriptor(bean, child));
          continue;
        }
        const attrs: [string, string][] = [];
        if (child.name !== undefined && inDescriptor && this.ctx.catalog.isA(child.type, NAMED_ENTITY)) attrs.push(['name', child.name]);
        if (child.typeGiven) attrs.push(['xsi:type', xsiTypeOf(child.type)]);
        w.open(element, attrs);
        this.writeContent(w, child, cloc, inDescriptor);
        w.close(element);
      }
    }
  }

  /** Writes a descriptor to a file of its own; returns its path relative to config.xml. */
  private writeDescriptor(owner: BeanView, descriptor: BeanView): string {
    const first = hyphenate(owner.type.short).split('-')[0]!;
    const folder = DESCRIPTOR_FOLDERS[first] ?? first;
    // Resources inside partitions and resource groups get a folder per scope.
    const identity = owner.key.split('/').map((s) => decodeURIComponent(s));
    const scope = identity.filter((_, i) => i % 2 === 1).slice(0, -1);
    const base = `${folder}/${[...scope, ''].join('/')}${owner.name ?? 'resource'}-${folder}`;
    let path = `${base}.xml`;
    for (let n = 2; this.taken.has(path.toLowerCase()); n++) path = `${base}-${n}.xml`;
    this.taken.add(path.toLowerCase());
    const root = rootElementOf(descriptor.type);
    const w = new XmlWriter();
    w.open(root, [
      ['xmlns', `${NS_BASE}/${root}`],
      ['xmlns:xsi', XSI],
      ['xsi:schemaLocation', `${NS_BASE}/${root} ${NS_BASE}/${root}/1.0/${root}.xsd`],
    ]);
    this.writeContent(w, descriptor, { file: path, path: `/${root}` }, true);
    w.close(root);
    this.files.push({ path, text: w.toString() });
    return path;
  }
}

/** config.xml first, then the descriptor files it names. */
export function writeConfigXml(ctx: ExportContext): XmlFile[] {
  const writer = new ConfigXmlWriter(ctx);
  writer.writeDomain(ctx.tree);
  return writer.files;
}
