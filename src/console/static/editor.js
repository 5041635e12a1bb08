// The console's one property editor, shared by the change center and the bean page: a bean's
// properties laid out from its description (?describe), each with an input of its type (text,
// number, checkbox, a choice of legal values, a picker among the beans a reference may name, one
// line per array item), its default, whether a change needs a restart, and read-only where the
// tree or the user cannot write. Secrets are write-only: their value is never shown.
import { useEffect, useState } from './vendor/hooks.mjs';
import { api, html, show } from './lib.js';
import { hashOf, referencedPath, restUrl, segmentsOfHref } from './beanpath.js';

const descriptions = new Map();

/** A URL's description, asked for once per page: the catalog does not change under a running console. */
export function describe(url) {
  if (!descriptions.has(url)) {
    const asked = api('GET', `${url}?describe`).then((r) => r.json);
    asked.catch(() => descriptions.delete(url));
    descriptions.set(url, asked);
  }
  return descriptions.get(url);
}

/** The collections at a tree's root whose beans a reference to `type` may name (catalog facts, kept). */
const holders = new Map();

function collectionsHolding(root, type) {
  const key = `${root} ${type}`;
  if (!holders.has(key)) {
    const found = (async () => {
      const collections = ((await describe(restUrl([root]))).children || []).filter((c) => c.kind === 'collection');
      const exact = collections.filter((c) => c.type === type);
      if (exact.length > 0) return exact.map((c) => c.name);
      // A reference to a base type (Target, SystemResource...): every collection whose types derive from it.
      const described = await Promise.all(collections.map((c) => describe(restUrl([root, c.name])).then((d) => ({ c, d }), () => ({ c, d: undefined }))));
      return described.filter(({ d }) => (d?.types || []).some((t) => t.type === type || (t.baseTypes || []).includes(type))).map(({ c }) => c.name);
    })();
    found.catch(() => holders.delete(key));
    holders.set(key, found);
  }
  return holders.get(key);
}

/**
 * The identities a reference to `type` may take in tree `root`, read now (beans come and go), or
 * null when no collection at the root holds such beans (the path is then typed by hand).
 */
export async function referenceChoices(root, type) {
  const names = await collectionsHolding(root, type);
  if (names.length === 0) return null;
  const lists = await Promise.all(names.map((name) => api('GET', `${restUrl([root, name])}?fields=&links=self`)));
  return lists.flatMap((r) => (r.json?.items || []).map((item) => segmentsOfHref(item.links?.find((l) => l.rel === 'self')?.href || '')).filter(Boolean).map((s) => s.slice(1)));
}

const identityOf = (value) => (Array.isArray(value) ? value : value && Array.isArray(value.identity) ? value.identity : undefined);
const sameIdentity = (a, b) => Boolean(a && b) && a.length === b.length && a.every((s, i) => s === b[i]);
const NUMBERS = ['int', 'long', 'double'];
const lines = (text) => text.split('\n').map((l) => l.trim()).filter((l) => l !== '');

/** A property's value as text for reading (references as links into the Browse view). */
export function ValueView({ p, value, root }) {
  if (p.encrypted) return html`<span class="muted">(write-only)</span>`;
  if (value === null || value === undefined) return html`<span class="muted">none</span>`;
  if (p.type === 'reference') {
    const refs = p.array ? value : [value];
    if (refs.length === 0) return html`<span class="muted">none</span>`;
    return refs.map((r) => {
      const path = referencedPath(root, r);
      return path ? html`<a class="ref" href=${hashOf(path)}>${path.slice(1).join('/')}</a> ` : `${show(r)} `;
    });
  }
  if (Array.isArray(value)) return value.length === 0 ? html`<span class="muted">empty</span>` : value.map(show).join(', ');
  return show(value);
}

/**
 * The input for one property. `value` is what it holds now (the edit or the bean's value);
 * `set` receives the new value in the interface's own JSON form; `choices` are a reference's
 * possible identities (undefined while read, null when none can be offered).
 */
export function editorFor(p, value, set, choices) {
  const id = `p-${p.name}`;
  if (p.encrypted) {
    return html`<input id=${id} name=${p.name} type="password" autocomplete="new-password" placeholder="write-only: type a new value" value=${typeof value === 'string' ? value : ''} onInput=${(e) => set(e.target.value)} />`;
  }
  if (p.type === 'reference') return referenceEditor(p, value, set, choices);
  if (p.type === 'object') {
    // A value of no fixed shape (or an array of them) is written as JSON; until it parses, it cannot be saved.
    return html`<textarea id=${id} name=${p.name} rows="3" class="json" onInput=${(e) => {
      try {
        set(JSON.parse(e.target.value));
        e.target.setCustomValidity('');
      } catch {
        set(UNPARSED);
        e.target.setCustomValidity('Not JSON');
      }
    }}>${value === undefined ? '' : JSON.stringify(value)}</textarea>`;
  }
  if (p.array) {
    const text = Array.isArray(value) ? value.map(show).join('\n') : '';
    return html`<textarea id=${id} name=${p.name} rows="3" placeholder="one value a line" onInput=${(e) => set(lines(e.target.value).map((l) => (NUMBERS.includes(p.type) ? Number(l) : l)))}>${text}</textarea>`;
  }
  if (Array.isArray(p.legalValues) && p.legalValues.length > 0) {
    // The value may be one the legal values no longer list: it stays choosable as it is.
    const options = p.legalValues.some((v) => v === value) || value === undefined ? p.legalValues : [value, ...p.legalValues];
    return html`<select id=${id} name=${p.name} onChange=${(e) => set(options[Number(e.target.value)])}>
      ${options.map((v, i) => html`<option value=${String(i)} selected=${v === value}>${v === null ? '(none)' : String(v)}</option>`)}
    </select>`;
  }
  if (p.type === 'boolean') return html`<input id=${id} name=${p.name} type="checkbox" checked=${value === true} onChange=${(e) => set(e.target.checked)} />`;
  if (NUMBERS.includes(p.type)) {
    return html`<input id=${id} name=${p.name} type="number" inputmode=${p.type === 'double' ? 'decimal' : 'numeric'} step=${p.type === 'double' ? 'any' : '1'} min=${p.min} max=${p.max}
      value=${value ?? ''} onInput=${(e) => set(e.target.value === '' ? null : Number(e.target.value))} />`;
  }
  if (p.type === 'properties') {
    const text = value && typeof value === 'object' ? Object.entries(value).map(([k, v]) => `${k}=${v ?? ''}`).join('\n') : '';
    return html`<textarea id=${id} name=${p.name} rows="3" placeholder="name=value, one a line" onInput=${(e) => set(Object.fromEntries(lines(e.target.value).map((l) => [l.split('=')[0].trim(), l.includes('=') ? l.slice(l.indexOf('=') + 1).trim() : ''])))}>${text}</textarea>`;
  }
  return html`<input id=${id} name=${p.name} type="text" value=${value ?? ''} placeholder=${p.default ?? ''} onInput=${(e) => set(e.target.value === '' ? null : e.target.value)} />`;
}

/** An edit whose text does not parse yet: it blocks saving. */
const UNPARSED = Symbol('unparsed');

function referenceEditor(p, value, set, choices) {
  const id = `p-${p.name}`;
  if (choices === undefined) return html`<select id=${id} name=${p.name} disabled><option>Reading the beans it may name…</option></select>`;
  if (choices === null) {
    // No collection at the tree's root holds such beans: the path is typed (servers/ms1).
    const asPath = (v) => (identityOf(v) || []).join('/');
    const text = p.array ? (value || []).map(asPath).join('\n') : asPath(value);
    const parse = (l) => l.split('/').filter(Boolean);
    return p.array
      ? html`<textarea id=${id} name=${p.name} rows="3" placeholder="one bean path a line (servers/ms1)" onInput=${(e) => set(lines(e.target.value).map((l) => ({ identity: parse(l) })))}>${text}</textarea>`
      : html`<input id=${id} name=${p.name} type="text" placeholder="bean path (servers/ms1)" value=${text} onInput=${(e) => set(e.target.value.trim() === '' ? null : parse(e.target.value.trim()))} />`;
  }
  const current = p.array ? (value || []).map(identityOf).filter(Boolean) : [identityOf(value)].filter(Boolean);
  // A referenced bean no longer listed (or in no collection at the root) stays selected, shown as it is.
  const all = [...choices, ...current.filter((c) => !choices.some((o) => sameIdentity(o, c)))];
  const chosen = (identity) => current.some((c) => sameIdentity(c, identity));
  if (p.array) {
    return html`<select id=${id} name=${p.name} multiple size=${Math.min(6, Math.max(2, all.length))} data-references=${p.references}
      onChange=${(e) => set([...e.target.selectedOptions].map((o) => ({ identity: all[Number(o.value)] })))}>
      ${all.map((identity, i) => html`<option value=${String(i)} selected=${chosen(identity)}>${identity.join('/')}</option>`)}
    </select>`;
  }
  return html`<select id=${id} name=${p.name} data-references=${p.references} onChange=${(e) => set(e.target.value === '' ? null : all[Number(e.target.value)])}>
    <option value="" selected=${current.length === 0}>(none)</option>
    ${all.map((identity, i) => html`<option value=${String(i)} selected=${chosen(identity)}>${identity.join('/')}</option>`)}
  </select>`;
}

/** What the catalog says beside the input: default, unit, range. */
function hints(p) {
  const out = [];
  if (p.encrypted) out.push('write-only');
  else if (p.derivedDefault) out.push('default derived from other settings');
  else if ('default' in p) out.push(`default ${p.default === null ? 'none' : show(p.default)}`);
  if (p.productionDefault !== undefined) out.push(`production default ${show(p.productionDefault)}`);
  if (p.unit) out.push(p.unit);
  if (p.min !== undefined || p.max !== undefined) out.push(`${p.min ?? '…'} to ${p.max ?? '…'}`);
  return out.join(' · ');
}

/** The edits with a property's new value; a secret's emptied input is no change (not an empty secret). */
function edited(edits, p, value) {
  const next = { ...edits, [p.name]: value };
  if (p.encrypted && value === '') delete next[p.name];
  return next;
}

/**
 * A bean's properties, editable where `editable` and the tree says writable. `url` is the bean's
 * REST URL; saving posts only the changed properties there, and `onSaved` hears of it.
 */
export function BeanEditor({ url, editable, onSaved, refresh }) {
  const [bean, setBean] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [edits, setEdits] = useState({});
  const [choices, setChoices] = useState({});
  const [filter, setFilter] = useState('');
  const [busy, setBusy] = useState(false);
  const root = segmentsOfHref(url)?.[0];
  const load = async () => {
    try {
      const [values, description] = await Promise.all([api('GET', `${url}?links=none`), describe(url)]);
      setBean({ values: values.json || {}, description });
      setError(undefined);
    } catch (err) {
      setBean(undefined);
      setError(err.message);
    }
  };
  useEffect(() => {
    setEdits({});
    load();
  }, [url, refresh]);
  useEffect(() => {
    if (!editable || !bean || !root) return;
    const types = [...new Set((bean.description.properties || []).filter((p) => p.writable && p.type === 'reference').map((p) => p.references))];
    let live = true;
    for (const type of types) {
      referenceChoices(root, type).then(
        (list) => live && setChoices((c) => ({ ...c, [type]: list })),
        () => live && setChoices((c) => ({ ...c, [type]: null })),
      );
    }
    return () => {
      live = false;
    };
  }, [editable, bean, root]);
  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api('POST', url, edits);
      setEdits({});
      await load();
      onSaved?.();
    } catch (err) {
      setError(`Not saved: ${err.message}`);
    } finally {
      setBusy(false);
    }
  };
  if (!bean) return error ? html`<p class="error" role="alert">${error}</p>` : html`<p>Reading the bean…</p>`;
  const wanted = filter.trim().toLowerCase();
  const properties = (bean.description.properties || []).filter((p) => !wanted || p.name.toLowerCase().includes(wanted));
  const changed = Object.keys(edits).length;
  const unparsed = Object.keys(edits).filter((k) => edits[k] === UNPARSED);
  // aria-busy while a save is on its way and the bean is read again: screen readers (and tests) wait for it.
  return html`<div class="bean-editor" data-editable=${editable ? 'true' : 'false'} aria-busy=${busy ? 'true' : 'false'}>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <label class="prop-filter">Filter properties <input type="search" value=${filter} onInput=${(e) => setFilter(e.target.value)} /></label>
    <table class="properties" aria-label="Properties"><tbody>${properties.map((p) => {
      // A key names the bean: the server refuses a new one (a bean is renamed by making another).
      const writable = editable && p.writable && !p.key;
      const value = p.name in edits ? edits[p.name] : p.encrypted ? undefined : bean.values[p.name];
      return html`<tr key=${p.name} data-property=${p.name} class=${p.name in edits ? 'changed' : ''}>
        <th scope="row">${writable ? html`<label for=${`p-${p.name}`}>${p.name}</label>` : p.name}${p.key ? html` <span class="badge">key</span>` : ''}${p.restartNeeded ? html` <span class="badge restart" title="A change takes effect after a restart">restart needed</span>` : ''}${editable && !writable ? html` <span class="badge ro">read-only</span>` : ''}</th>
        <td>${writable ? editorFor(p, value, (v) => setEdits((e) => edited(e, p, v)), choices[p.references]) : html`<${ValueView} p=${p} value=${value} root=${root} />`}
          <span class="prop-hint">${hints(p)}</span></td>
      </tr>`;
    })}</tbody></table>
    ${editable && html`<div class="buttons">
      <button type="button" id="save" onClick=${save} disabled=${changed === 0 || busy || unparsed.length > 0}>Save changes${changed ? ` (${changed})` : ''}</button>
      <button type="button" onClick=${() => setEdits({})} disabled=${changed === 0 || busy}>Discard</button>
      ${unparsed.length > 0 && html`<span class="error">Not JSON yet: ${unparsed.join(', ')}</span>`}
    </div>`}
  </div>`;
}
