// The Browse view: every management tree (and the Lifecycle Manager's), expanded on demand by
// following what the server says a bean holds (its description's children that its links show
// present) and what a collection lists; a search over the tree; and the bean page of the bean the
// URL's hash names (#browse/domainConfig/servers/ms1), so a page can be bookmarked and reloaded.
import { useEffect, useRef, useState } from './vendor/hooks.mjs';
import { BeanPage } from './beanpage.js';
import { TREES, hashOf, keyOf, restUrl, segmentsOfHash, segmentsOfHref } from './beanpath.js';
import { describe } from './editor.js';
import { api, html } from './lib.js';

/** How many matches a search lists. */
const MAX_MATCHES = 50;

const selfPath = (item) => segmentsOfHref(item?.links?.find((l) => l.rel === 'self')?.href || '');

/** What a node holds: a bean's present children, or a collection's items. */
async function childrenOf(node) {
  const url = restUrl(node.segments);
  if (node.kind === 'collection') {
    const r = await api('GET', `${url}?fields=&links=self`);
    return (r.json?.items || []).map(selfPath).filter(Boolean).map((segments) => ({ segments, kind: 'bean' }));
  }
  const [links, description] = await Promise.all([api('GET', `${url}?fields=`), describe(url)]);
  const present = new Set((links.json?.links || []).map((l) => l.rel));
  return (description.children || []).filter((c) => present.has(c.name)).map((c) => ({ segments: [...node.segments, c.name], kind: c.kind === 'collection' ? 'collection' : 'bean' }));
}

/** Beans named like `text` in the collections at each tree's root, asked of the server. */
async function searchServer(text, user) {
  const wanted = text.toLowerCase();
  const found = [];
  await Promise.all(
    TREES.filter((t) => t !== 'edit').map((tree) => searchTree(tree, wanted, user, found).catch(() => undefined)),
  );
  return found.sort((a, b) => TREES.indexOf(a[0]) - TREES.indexOf(b[0]) || keyOf(a).localeCompare(keyOf(b)));
}

/** One tree's part of a search (a tree the user may not read, or that fails, adds nothing). */
async function searchTree(tree, wanted, user, found) {
  const root = restUrl([tree]);
  const collections = ((await describe(root)).children || []).filter((c) => c.kind === 'collection' && (c.access?.read || []).some((r) => user.roles.includes(r)));
  if (collections.length === 0) return;
  let lists;
  if (tree === 'lifecycle') {
    // The Lifecycle Manager has no search: each collection is read (there are few).
    lists = await Promise.all(collections.map((c) => api('GET', `${restUrl([tree, c.name])}?fields=&links=self`).then((r) => r.json?.items || [], () => [])));
  } else {
    const query = { fields: [], links: [], children: Object.fromEntries(collections.map((c) => [c.name, { fields: [], links: ['self'] }])) };
    const r = await api('POST', `${root}/search`, query);
    lists = collections.map((c) => r.json?.[c.name]?.items || []);
  }
  for (const item of lists.flat()) {
    const segments = selfPath(item);
    if (segments && segments[segments.length - 1].toLowerCase().includes(wanted)) found.push(segments);
  }
}

function Search({ nodes, user }) {
  const [text, setText] = useState('');
  const [server, setServer] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [busy, setBusy] = useState(false);
  const wanted = text.trim().toLowerCase();
  const loaded = wanted
    ? [...nodes.values()].filter((n) => n.segments[n.segments.length - 1].toLowerCase().includes(wanted)).map((n) => n.segments).slice(0, MAX_MATCHES)
    : [];
  const submit = async (event) => {
    event.preventDefault();
    if (!wanted) return;
    setBusy(true);
    setError(undefined);
    try {
      setServer({ text: wanted, found: await searchServer(wanted, user) });
    } catch (err) {
      setError(err.message);
    } finally {
      setBusy(false);
    }
  };
  const list = (paths, label, cls) => html`<ul class=${`matches ${cls}`} aria-label=${label}>${paths.slice(0, MAX_MATCHES).map((s) => html`<li><a href=${hashOf(s)}>${s.join('/')}</a></li>`)}</ul>`;
  return html`<form class="tree-search" role="search" onSubmit=${submit}>
    <label>Find a bean by name <input type="search" id="tree-search" value=${text} placeholder="name, then Enter to ask the server"
      onInput=${(e) => { setText(e.target.value); setServer(undefined); }} /></label>
    <button type="submit" disabled=${busy || !wanted}>Search</button>
    ${wanted && html`<p class="muted">${loaded.length} among the opened branches${loaded.length >= MAX_MATCHES ? ` (first ${MAX_MATCHES})` : ''}</p>${loaded.length > 0 && list(loaded, 'Matches among the opened branches', 'loaded')}`}
    ${busy && html`<p>Searching…</p>`}
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${server && server.text === wanted && html`<p class="muted">${server.found.length} on the server${server.found.length > MAX_MATCHES ? ` (first ${MAX_MATCHES})` : ''}</p>${list(server.found, 'Matches on the server', 'server')}`}
  </form>`;
}

function TreeNode({ node, nodes, selected, toggle }) {
  const key = keyOf(node.segments);
  const label = node.segments[node.segments.length - 1];
  const isSelected = key === selected;
  const children = node.open && node.children ? node.children.map((k) => nodes.get(k)).filter(Boolean) : [];
  return html`<li role="treeitem" aria-expanded=${node.children && node.children.length === 0 ? undefined : node.open ? 'true' : 'false'} aria-selected=${isSelected ? 'true' : 'false'} data-path=${key} data-kind=${node.kind}>
    <button type="button" class="twisty" tabindex="-1" aria-label=${`${node.open ? 'Collapse' : 'Expand'} ${label}`} onClick=${() => toggle(node)}>${node.loading ? '…' : node.children && node.children.length === 0 ? '·' : node.open ? '▾' : '▸'}</button>
    <a href=${hashOf(node.segments)} aria-current=${isSelected ? 'page' : undefined}>${label}</a>${node.kind === 'collection' && node.children ? html` <span class="count">${node.children.length}</span>` : ''}
    ${node.error && html`<span class="error"> ${node.error}</span>`}
    ${children.length > 0 && html`<ul role="group">${children.map((c) => html`<${TreeNode} key=${keyOf(c.segments)} node=${c} nodes=${nodes} selected=${selected} toggle=${toggle} />`)}</ul>`}
  </li>`;
}

/** Arrow keys move between the tree's links; right and left open and close a branch. */
function onTreeKey(event, nodes, toggle) {
  const links = [...event.currentTarget.querySelectorAll('li[role="treeitem"] > a')];
  const at = links.indexOf(document.activeElement);
  if (at < 0) return;
  const item = links[at].parentElement;
  const node = nodes.get(item.dataset.path);
  const go = (i) => links[Math.max(0, Math.min(links.length - 1, i))].focus();
  if (event.key === 'ArrowDown') go(at + 1);
  else if (event.key === 'ArrowUp') go(at - 1);
  else if (event.key === 'ArrowRight' && node && !node.open) toggle(node);
  else if (event.key === 'ArrowLeft' && node?.open) toggle(node);
  else return;
  event.preventDefault();
}

export function Browse({ user }) {
  const [segments, setSegments] = useState(() => segmentsOfHash(location.hash));
  const nodes = useRef(new Map(TREES.map((t) => [t, { segments: [t], kind: 'bean', open: false }]))).current;
  const [, setVersion] = useState(0);
  const pane$ = useRef(null);
  const redraw = () => setVersion((v) => v + 1);
  const load = async (node) => {
    if (node.children || node.loading) return;
    node.loading = true;
    node.error = undefined;
    redraw();
    try {
      const children = await childrenOf(node);
      // What the node held before and holds no more goes, with everything below it.
      const prefix = `${keyOf(node.segments)}/`;
      const kept = new Set(children.map((c) => keyOf(c.segments)));
      for (const k of [...nodes.keys()]) {
        if (k.startsWith(prefix) && !kept.has(prefix + k.slice(prefix.length).split('/')[0])) nodes.delete(k);
      }
      for (const c of children) {
        const k = keyOf(c.segments);
        if (!nodes.has(k)) nodes.set(k, { ...c, open: false });
      }
      node.children = children.map((c) => keyOf(c.segments));
    } catch (err) {
      node.error = err.message;
    } finally {
      node.loading = false;
      redraw();
    }
  };
  const toggle = (node) => {
    node.open = !node.open;
    // A collection opened again is read again: beans come and go.
    if (node.open && node.kind === 'collection' && !node.loading) node.children = undefined;
    if (node.open) load(node);
    redraw();
  };
  useEffect(() => {
    const onHash = () => setSegments(segmentsOfHash(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  // The bean the hash names: its branch is opened, each level read in turn (the kinds come from the parents).
  useEffect(() => {
    let live = true;
    (async () => {
      for (let depth = 1; depth <= segments.length && live; depth++) {
        let node = nodes.get(keyOf(segments.slice(0, depth)));
        const parent = nodes.get(keyOf(segments.slice(0, depth - 1)));
        if (!node && parent?.children && !parent.loading) {
          // Made since its parent was read: the parent is read again.
          parent.children = undefined;
          await load(parent);
          node = nodes.get(keyOf(segments.slice(0, depth)));
        }
        if (!node || !live) break;
        node.open = true;
        await load(node);
      }
      redraw();
      // The chosen bean's line is brought into the tree's view (the pane scrolls, not the page).
      requestAnimationFrame(() => {
        const pane = pane$.current;
        const line = pane?.querySelector('li[aria-selected="true"] > a');
        if (!pane || !line) return;
        const offset = line.getBoundingClientRect().top - pane.getBoundingClientRect().top;
        if (offset < 0 || offset > pane.clientHeight - line.offsetHeight) pane.scrollTop += offset - pane.clientHeight / 3;
      });
    })();
    return () => {
      live = false;
    };
  }, [keyOf(segments)]);
  const selected = keyOf(segments);
  return html`<div class="browse">
    <aside class="tree-pane" aria-label="Management trees">
      <${Search} nodes=${nodes} user=${user} />
      <div class="tree-scroll" ref=${pane$}>
        <ul role="tree" aria-label="Management trees" onKeyDown=${(e) => onTreeKey(e, nodes, toggle)}>
          ${TREES.map((t) => html`<${TreeNode} key=${t} node=${nodes.get(t)} nodes=${nodes} selected=${selected} toggle=${toggle} />`)}
        </ul>
      </div>
    </aside>
    <div class="bean-pane">
      ${segments.length > 0
        ? html`<${BeanPage} key=${selected} segments=${segments} user=${user} />`
        : html`<p class="muted">Choose a bean in a tree, or find one by name. Its page shows its properties, children and actions; the address of the page names the bean.</p>`}
    </div>
  </div>`;
}
