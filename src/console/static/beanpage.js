// The bean page of the Browse view, generated from the catalog's description of what the URL names:
// a bean's properties (in the shared editor), its children and its actions; a collection's items.
// A configuration bean is changed through the edit tree, under the same path, while the user
// holds the edit session; a bean of a tree without sessions that the user may change (the
// Lifecycle Manager's) is changed at once; otherwise everything is shown read-only.
import { useEffect, useState } from './vendor/hooks.mjs';
import { CONFIG_TREES, hashOf, restUrl, segmentsOfHref } from './beanpath.js';
import { BeanEditor, describe } from './editor.js';
import { api, followTask, html, show } from './lib.js';
import { TaskProgress } from './tasks.js';

const mayAny = (roles, user) => (roles || []).some((r) => user.roles.includes(r));

function Crumbs({ segments }) {
  return html`<nav class="crumbs" aria-label="Where this bean is">${segments.map((s, i) => html`${i > 0 ? ' / ' : ''}<a href=${hashOf(segments.slice(0, i + 1))}>${s}</a>`)}</nav>`;
}

export function BeanPage({ segments, user }) {
  const url = restUrl(segments);
  const root = segments[0];
  const [description, setDescription] = useState(undefined);
  const [cm, setCm] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [round, setRound] = useState(0);
  const config = CONFIG_TREES.includes(root);
  const readSession = () =>
    api('GET', 'edit/changeManager?links=none&fields=locked,lockOwner,hasChanges').then(
      (r) => setCm(r.json),
      () => setCm(undefined),
    );
  useEffect(() => {
    setDescription(undefined);
    setError(undefined);
    describe(url).then(setDescription, (err) => setError(err.message));
    if (config) readSession();
  }, [url]);
  const startEdit = async () => {
    setError(undefined);
    try {
      await api('POST', 'edit/changeManager/startEdit', {});
      await readSession();
      setRound((r) => r + 1);
    } catch (err) {
      setError(`Start edit: ${err.message}`);
    }
  };
  const name = segments[segments.length - 1];
  if (error) return html`<section class="bean-page"><${Crumbs} segments=${segments} /><p class="error" role="alert">${error}</p></section>`;
  if (!description) return html`<section class="bean-page"><${Crumbs} segments=${segments} /><p>Reading ${name}…</p></section>`;
  if (description.kind === 'collection') {
    return html`<section class="bean-page" aria-labelledby="bean-h" data-collection=${segments.join('/')}>
      <${Crumbs} segments=${segments} />
      <h2 id="bean-h">${name}</h2>
      <p class="type">A collection of ${(description.types || []).map((t) => t.type).join(', ')}.</p>
      <${Items} url=${url} />
    </section>`;
  }
  const mine = Boolean(cm?.locked && cm.lockOwner === user.user);
  // A tree without edit sessions that takes changes (the Lifecycle Manager's) is written at once.
  const direct = !config && mayAny(description.access?.update, user) && (description.properties || []).some((p) => p.writable && !p.key);
  const editing = (config && mine) || direct;
  const shownUrl = config && mine ? restUrl(['edit', ...segments.slice(1)]) : url;
  const mayStart = config && cm && !cm.locked && user.roles.includes('Admin');
  return html`<section class="bean-page" aria-labelledby="bean-h" data-bean=${segments.join('/')}>
    <${Crumbs} segments=${segments} />
    <h2 id="bean-h">${name}</h2>
    <p class="type"><strong>${description.type}</strong>${description.description ? ` — ${description.description}` : ''}</p>
    ${config && html`<p class="session" data-editing=${editing ? 'true' : 'false'}>${
      editing
        ? html`You hold the edit session: saving writes into it (the edit tree); the <a href="#changes">change center</a> activates it.`
        : cm?.locked
          ? `Read-only: the edit session is held by ${cm.lockOwner}.`
          : mayStart
            ? html`Read-only until you start an edit session. <button type="button" id="bean-start-edit" onClick=${startEdit}>Start edit</button>`
            : 'Read-only.'
    }</p>`}
    ${direct && html`<p class="session" data-editing="true">This tree has no edit session: saving changes the bean at once.</p>`}
    <${BeanEditor} key=${shownUrl} url=${shownUrl} editable=${editing} refresh=${round} onSaved=${config ? readSession : undefined} />
    <${Children} segments=${segments} children=${description.children || []} />
    <${Actions} key=${shownUrl} url=${shownUrl} user=${user} />
  </section>`;
}

/** The children the bean holds (an optional child that is absent is not listed). */
function Children({ segments, children }) {
  const [present, setPresent] = useState(undefined);
  const url = restUrl(segments);
  useEffect(() => {
    api('GET', `${url}?fields=`).then(
      (r) => setPresent(new Set((r.json?.links || []).map((l) => l.rel))),
      () => setPresent(new Set()),
    );
  }, [url]);
  const shown = children.filter((c) => present?.has(c.name));
  if (shown.length === 0) return null;
  return html`<section class="children" aria-label="Children"><h3>Children</h3><ul>${shown.map(
    (c) => html`<li><a href=${hashOf([...segments, c.name])}>${c.name}</a> <span class="muted">${c.kind === 'collection' ? `collection of ${c.type}` : c.type}</span></li>`,
  )}</ul></section>`;
}

function Items({ url }) {
  const [items, setItems] = useState(undefined);
  const [error, setError] = useState(undefined);
  useEffect(() => {
    api('GET', `${url}?fields=&links=self`).then(
      (r) => setItems((r.json?.items || []).map((i) => segmentsOfHref(i.links?.find((l) => l.rel === 'self')?.href || '')).filter(Boolean)),
      (err) => setError(err.message),
    );
  }, [url]);
  if (error) return html`<p class="error" role="alert">${error}</p>`;
  if (!items) return html`<p>Reading the items…</p>`;
  if (items.length === 0) return html`<p class="muted">Empty.</p>`;
  return html`<ul class="items">${items.map((s) => html`<li><a href=${hashOf(s)}>${s[s.length - 1]}</a></li>`)}</ul>`;
}

/** The bean's actions the user's roles may invoke, each a button (with inputs for its shortest signature). */
function Actions({ url, user }) {
  // The actions of the tree shown (an edit tree bean offers those of the edit tree).
  const [actions, setActions] = useState([]);
  useEffect(() => {
    describe(url).then((d) => setActions(d.actions || []), () => setActions([]));
  }, [url]);
  const allowed = actions.filter((a) => mayAny(a.access?.invoke, user));
  if (allowed.length === 0) return null;
  return html`<section class="bean-actions" aria-label="Actions"><h3>Actions</h3>${allowed.map((a) => html`<${Action} key=${a.name} url=${url} action=${a} />`)}</section>`;
}

const argument = (p, text) => {
  const one = (t) => (p.type === 'reference' ? t.split('/').filter(Boolean) : ['int', 'long', 'double'].includes(p.type) ? Number(t) : p.type === 'boolean' ? t === 'true' : t);
  if (p.array) return text.split(/[\n,]/).map((t) => t.trim()).filter(Boolean).map(one);
  return one(text.trim());
};

function Action({ url, action }) {
  const overload = [...(action.overloads || [{ parameters: [] }])].sort((a, b) => a.parameters.length - b.parameters.length)[0];
  const [args, setArgs] = useState({});
  const [task, setTask] = useState(undefined);
  const [result, setResult] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [busy, setBusy] = useState(false);
  const run = async (event) => {
    event.preventDefault();
    setError(undefined);
    setResult(undefined);
    setTask(undefined);
    setBusy(true);
    try {
      const body = Object.fromEntries(overload.parameters.map((p) => [p.name, argument(p, args[p.name] ?? (p.type === 'boolean' ? 'false' : ''))]));
      const r = await api('POST', `${url}/${encodeURIComponent(action.name)}`, body, action.returnsTask ? { Prefer: 'respond-async' } : {});
      const job = r.location || r.json?.links?.find((l) => l.rel === 'job')?.href;
      if (action.returnsTask && job) await followTask(job, r.json, setTask);
      else setResult(r.json && 'return' in r.json ? r.json.return : r.json);
    } catch (err) {
      setError(err.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="action" data-action=${action.name} onSubmit=${run}>
    ${overload.parameters.map((p) => html`<label>${p.name}${p.array ? ' (comma-separated)' : ''}
      ${p.type === 'boolean' && !p.array
        ? html`<input type="checkbox" name=${p.name} onChange=${(e) => setArgs({ ...args, [p.name]: String(e.target.checked) })} />`
        : html`<input type=${['int', 'long', 'double'].includes(p.type) && !p.array ? 'number' : 'text'} name=${p.name} placeholder=${p.type === 'reference' ? 'bean path (servers/ms1)' : p.type}
            onInput=${(e) => setArgs({ ...args, [p.name]: e.target.value })} />`}
    </label>`)}
    <button type="submit" disabled=${busy} title=${action.description || ''}>${action.name}</button>
    <${TaskProgress} task=${task} label=${action.name} />
    ${result !== undefined && html`<output class="result">${show(result)}</output>`}
    ${error && html`<p class="error" role="alert">${error}</p>`}
  </form>`;
}
