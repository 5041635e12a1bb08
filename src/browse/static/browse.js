// The browsable view's script. The page already shows the bean and its links; this adds what needs
// more calls: the change center and edit forms on the edit tree, create forms for
// creatable collections, and buttons for actions that follow their task to the end. Every call is
// the public REST interface, with the credentials the browser already holds for this origin.

const bean = JSON.parse(document.getElementById('bean').textContent || 'null') || {};
const self = document.body.dataset.self || location.pathname;
const selfUrl = new URL(self, location.href);
const WRITE_HEADERS = { 'X-Requested-By': 'appserver-admin browser', 'Content-Type': 'application/json', Accept: 'application/json' };

/** The parts of a management path: version root, tree, and the root the bean's identity hangs from. */
function placeOf(url) {
  const segments = url.pathname.split('/');
  const at = segments.indexOf('management');
  if (at < 0 || segments[at + 1] !== 'appserver') return undefined;
  const versionRoot = segments.slice(0, at + 3).join('/');
  const tree = segments[at + 3];
  const identity = Array.isArray(bean.identity) ? bean.identity : undefined;
  // A bean's identity is its path below its tree's root, so references (identities too) resolve there.
  const root = identity ? segments.slice(0, segments.length - identity.length).join('/') : segments.slice(0, at + 4).join('/');
  return { versionRoot, tree, root };
}
const place = placeOf(selfUrl);

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'onclick' || k === 'onsubmit') node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
};

async function call(method, url, body, headers = {}) {
  const response = await fetch(url, {
    method,
    // Reads carry X-Requested-By too: domainRuntime/serverRuntimes needs it while a managed server runs.
    headers: method === 'GET' ? { Accept: 'application/json', 'X-Requested-By': WRITE_HEADERS['X-Requested-By'], ...headers } : { ...WRITE_HEADERS, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const text = await response.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, ok: response.ok, json, location: response.headers.get('location') };
}

/** The words of an error body: its detail and each detail of its list. */
function problemText(result) {
  const j = result.json || {};
  const details = Array.isArray(j['appserver:errorsDetails']) ? j['appserver:errorsDetails'].map((d) => d.detail) : [];
  return [j.detail, ...details].filter(Boolean).join(' ') || `HTTP ${result.status}`;
}

function notice(where, text, kind = 'info') {
  const p = el('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
  where.prepend(p);
  return p;
}

/** What the server says about this bean's type: properties, actions and their parameters. */
async function describe() {
  const url = new URL(selfUrl);
  url.search = 'describe';
  const r = await call('GET', url.href);
  return r.ok && r.json ? r.json : undefined;
}

const propertiesOf = (description) => (description && Array.isArray(description.properties) ? description.properties : []);
const actionsOf = (description) => (description && Array.isArray(description.actions) ? description.actions : []);

// ---- the change center: the edit lock, the pending changes, activate and cancel ----
async function changeCenter() {
  const section = document.getElementById('change-center');
  const manager = `${place.versionRoot}/edit/changeManager`;
  const state = await call('GET', `${manager}?links=none`);
  if (!state.ok) return undefined;
  const cm = state.json;
  section.hidden = false;
  section.textContent = '';
  section.append(el('h2', {}, 'Change center'));
  const mine = cm.locked && cm.lockOwner === currentUser;
  section.append(el('p', { class: 'lock' }, cm.locked ? `Edit session held by ${cm.lockOwner}${cm.hasChanges ? ', with changes not yet activated' : ''}.` : 'No edit session is open.'));
  const invoke = (action, body = {}) => async () => {
    const r = await call('POST', `${manager}/${action}`, body);
    if (!r.ok) {
      notice(section, `${action} failed: ${problemText(r)}`, 'error');
      return;
    }
    location.reload();
  };
  const buttons = el('div', { class: 'buttons' });
  if (!cm.locked) buttons.append(el('button', { type: 'button', id: 'start-edit', onclick: invoke('startEdit') }, 'Start edit'));
  if (mine) {
    buttons.append(el('button', { type: 'button', id: 'activate', onclick: invoke('activate') }, 'Activate changes'));
    buttons.append(el('button', { type: 'button', id: 'cancel-edit', onclick: invoke('cancelEdit') }, 'Undo all changes'));
  }
  section.append(buttons);
  if (mine && cm.hasChanges) section.append(pendingChanges(cm));
  return { mine };
}

/** The session's changes, per bean and property, as the change manager lists them. */
function pendingChanges(cm) {
  const box = el('div', { class: 'pending' }, el('h3', {}, 'Pending changes'));
  const changes = Array.isArray(cm.pendingChanges) ? cm.pendingChanges : [];
  if (changes.length === 0) {
    box.append(el('p', {}, 'The session holds changes (the change manager lists none).'));
    return box;
  }
  const table = el('table', { class: 'diff' }, el('tr', {}, el('th', {}, 'Bean'), el('th', {}, 'Change'), el('th', {}, 'Property'), el('th', {}, 'Old'), el('th', {}, 'New')));
  for (const c of changes) {
    const where = Array.isArray(c.identity) ? c.identity.join('/') : '';
    const rows = Array.isArray(c.properties) && c.properties.length > 0 ? c.properties : [{}];
    for (const p of rows) {
      const restart = p.restartRequired ? ' (restart needed)' : '';
      table.append(el('tr', {}, el('td', {}, where), el('td', {}, String(c.operation ?? '')), el('td', {}, `${p.name ?? ''}${restart}`), el('td', {}, show(p.oldValue)), el('td', {}, show(p.newValue))));
    }
  }
  box.append(table);
  return box;
}

const show = (v) => (v === undefined ? '' : v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** An input for one property, shaped by its type and legal values. */
function inputFor(p, value) {
  const name = p.name;
  if (Array.isArray(p.legalValues) && p.legalValues.length > 0) {
    const select = el('select', { name });
    for (const v of p.legalValues) select.append(el('option', { value: String(v), selected: v === value }, String(v)));
    return select;
  }
  if (p.type === 'boolean') return el('input', { type: 'checkbox', name, checked: value === true });
  if (p.type === 'int' || p.type === 'long' || p.type === 'double') return el('input', { type: 'number', name, value: value ?? '' });
  return el('input', { type: 'text', name, value: value === null || value === undefined ? '' : String(value) });
}

function readInput(p, input) {
  if (input.type === 'checkbox') return input.checked;
  if (input.type === 'number') return input.value === '' ? null : Number(input.value);
  return input.value === '' && bean[p.name] === null ? null : input.value;
}

// Secrets, arrays and references are left to the JSON interface; the form takes plain values.
const scalarWritable = (p) => p.writable === true && !p.array && !p.encrypted && ['string', 'boolean', 'int', 'long', 'double'].includes(p.type);

// ---- edit form: writable properties of an edit-tree bean, saved into the open session ----
function editForm(description) {
  const writable = propertiesOf(description).filter((p) => scalarWritable(p) && p.name in bean);
  if (writable.length === 0) return;
  const inputs = new Map();
  for (const p of writable) {
    const cell = document.querySelector(`table.properties td[data-property="${CSS.escape(p.name)}"]`);
    if (!cell) continue;
    const input = inputFor(p, bean[p.name]);
    input.setAttribute('aria-label', p.name);
    if (p.restartNeeded) cell.title = 'A change takes effect after a restart';
    cell.textContent = '';
    cell.append(input);
    inputs.set(p, input);
  }
  const table = document.querySelector('table.properties');
  const status = el('div', { class: 'form-status' });
  const save = el('button', { type: 'button', id: 'save' }, 'Save changes');
  save.addEventListener('click', async () => {
    const changes = {};
    for (const [p, input] of inputs) {
      const v = readInput(p, input);
      if (v !== bean[p.name]) changes[p.name] = v;
    }
    if (Object.keys(changes).length === 0) {
      notice(status, 'Nothing changed.');
      return;
    }
    const r = await call('POST', self, changes);
    if (!r.ok) notice(status, `Not saved: ${problemText(r)}`, 'error');
    else location.reload();
  });
  table.after(el('div', { class: 'buttons' }, save), status);
}

// ---- create form: a creatable collection's create form, sent to the collection ----
async function createForm() {
  const formLink = (bean.links || []).find((l) => l.rel === 'create-form');
  if (!formLink) return;
  const r = await call('GET', `${formLink.href}${formLink.href.includes('?') ? '&' : '?'}links=none`);
  if (!r.ok) return;
  const section = document.getElementById('create');
  section.hidden = false;
  const name = el('input', { type: 'text', name: 'name', required: true, 'aria-label': 'name' });
  const form = el('form', { id: 'create-form' }, el('h2', {}, 'Create'), el('label', {}, 'Name ', name));
  const extra = el('textarea', { name: 'properties', rows: '3', placeholder: '{"property": "value"}', 'aria-label': 'other properties (JSON)' });
  form.append(el('label', {}, 'Other properties (JSON, optional) ', extra), el('button', { type: 'submit' }, 'Create'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let body;
    try {
      body = { ...(extra.value.trim() ? JSON.parse(extra.value) : {}), name: name.value };
    } catch (err) {
      notice(form, `The other properties are not JSON: ${err.message}`, 'error');
      return;
    }
    const created = await call('POST', self, body);
    if (!created.ok) notice(form, `Not created: ${problemText(created)}`, 'error');
    else location.reload();
  });
  section.append(form);
}

// ---- actions: a button per action, its parameters as inputs, its task followed to the end ----
function actionButtons(description) {
  const links = (bean.links || []).filter((l) => l.rel === 'action');
  if (links.length === 0) return;
  const section = document.getElementById('actions');
  section.hidden = false;
  section.append(el('h2', {}, 'Actions'));
  const described = new Map(actionsOf(description).map((a) => [a.name, a]));
  for (const link of links) {
    // Of an action's overloads, the button offers the one with the fewest parameters.
    const overloads = (described.get(link.title) || {}).overloads || [];
    const simplest = overloads.reduce((best, o) => (!best || (o.parameters || []).length < best.parameters.length ? { parameters: o.parameters || [] } : best), undefined);
    const params = (simplest ? simplest.parameters : []).map((p) => ({ p, input: el('input', { type: 'text', name: p.name, placeholder: p.type || '', 'aria-label': p.name }) }));
    const progress = el('div', { class: 'task', 'data-action': link.title });
    const button = el('button', { type: 'button', 'data-action': link.title }, link.title);
    button.addEventListener('click', async () => {
      const body = {};
      for (const { p, input } of params) {
        if (input.value === '') continue;
        try {
          body[p.name] = JSON.parse(input.value);
        } catch {
          body[p.name] = input.value;
        }
      }
      button.disabled = true;
      progress.textContent = 'Sent…';
      const r = await call('POST', link.href, body, { Prefer: 'respond-async' });
      button.disabled = false;
      if (!r.ok) {
        progress.textContent = `Failed: ${problemText(r)}`;
        progress.className = 'task failed';
        return;
      }
      // A task comes back running (202, polled at its URL) or already ended (200, shown as it is).
      const isTask = r.json && typeof r.json.taskStatus === 'string';
      const task = r.location || (r.json && (r.json.links || []).find((l) => l.rel === 'job' || l.rel === 'self')?.href);
      if (isTask || (r.status === 202 && task)) await follow(task, r.json, progress);
      else progress.textContent = `Done${r.json && r.json.return !== undefined ? `: ${show(r.json.return)}` : ''}.`;
    });
    section.append(el('div', { class: 'action' }, button, ...params.map(({ p, input }) => el('label', {}, `${p.name} `, input)), progress));
  }
}

/** Polls a task until it completes (bounded: ten minutes), showing its progress as it goes. */
async function follow(url, first, progress) {
  const bar = el('progress', { max: '100' });
  const text = el('span');
  progress.textContent = '';
  progress.append(bar, ' ', text);
  const deadline = Date.now() + 600_000;
  let task = first;
  for (;;) {
    if (task) {
      text.textContent = `${task.taskStatus || task.status || ''} ${task.progress || ''}`.trim();
      if (task.completed || task.running === false) break;
    }
    if (Date.now() > deadline) {
      text.textContent = 'Still running after ten minutes; see the task for more.';
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(Number(task?.intervalToPoll) || 500, 1000)));
    const r = await call('GET', `${url}?links=none`);
    if (!r.ok) {
      text.textContent = `The task could not be read: ${problemText(r)}`;
      return;
    }
    task = r.json;
  }
  bar.value = 100;
  const failed = task.taskError || task.progress === 'failed' || /FAILED/.test(task.taskStatus || '');
  progress.className = failed ? 'task failed' : 'task done';
  text.textContent = failed ? `Failed: ${show(task.taskError)}` : `${task.taskStatus || 'Completed'} (${task.progress || 'success'})`;
}

// ---- who is looking ----
let currentUser;
async function user() {
  if (!place) return;
  const r = await call('GET', `${place.versionRoot}/currentUser?links=none`);
  if (r.ok && r.json) {
    currentUser = r.json.user;
    const roles = Array.isArray(r.json.roles) ? r.json.roles.join(', ') : '';
    document.querySelector('header').append(el('span', { class: 'user' }, `${currentUser}${roles ? ` (${roles})` : ''}`));
  }
}

async function main() {
  if (Number(document.body.dataset.status) >= 400) return;
  await user();
  const description = await describe();
  actionButtons(description);
  if (place && place.tree === 'edit') {
    const center = await changeCenter();
    if (center && center.mine) {
      editForm(description);
      await createForm();
    }
  }
  document.body.dataset.ready = 'true';
}

main().catch((err) => {
  notice(document.querySelector('main'), `The page could not finish loading: ${err.message}`, 'error');
  document.body.dataset.ready = 'true';
});
