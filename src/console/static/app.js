// The console: one page over the public REST interface. Written with Preact and htm (no build step:
// the browser loads these modules as they are). Credentials are asked by the console's own form,
// kept for this tab only (sessionStorage), and sent as basic credentials on every call.
import { h, render } from './vendor/preact.mjs';
import { useCallback, useEffect, useRef, useState } from './vendor/hooks.mjs';
import htm from './vendor/htm.mjs';

const html = htm.bind(h);
const BASE = '/management/appserver/latest';
const STORAGE = 'appserver-console';
const POLL_MS = 2000;
const HISTORY = 60;

// ---- calls ----

let credentials = JSON.parse(sessionStorage.getItem(STORAGE) || 'null');
let onSignedOut = () => {};

class CallError extends Error {
  constructor(status, text) {
    super(text);
    this.status = status;
  }
}

function problemText(status, body) {
  const details = body && Array.isArray(body['appserver:errorsDetails']) ? body['appserver:errorsDetails'].map((d) => d.detail) : [];
  return [body && body.detail, ...details].filter(Boolean).join(' ') || `HTTP ${status}`;
}

/** One call of the REST interface; a 401 signs the console out. */
async function api(method, path, body, extra = {}) {
  const headers = {
    Accept: 'application/json',
    // Asks the server not to challenge: a failed sign-in shows in the form, not in a browser dialog.
    'X-Requested-With': 'XMLHttpRequest',
    ...(credentials ? { Authorization: `Basic ${btoa(`${credentials.user}:${credentials.password}`)}` } : {}),
    ...(method === 'GET' ? {} : { 'X-Requested-By': 'appserver-console', 'Content-Type': 'application/json' }),
    ...extra,
  };
  const url = /^(https?:)?\//.test(path) ? path : `${BASE}/${path}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' });
  const text = await response.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (response.status === 401 && credentials) {
    signOut('Your credentials are no longer accepted; sign in again.');
  }
  if (!response.ok) throw new CallError(response.status, problemText(response.status, json));
  return { status: response.status, json, location: response.headers.get('location') };
}

function signOut(message) {
  credentials = null;
  sessionStorage.removeItem(STORAGE);
  onSignedOut(message);
}

/** Polls a task until it ends (bounded: ten minutes), reporting it as it goes. */
async function followTask(url, first, report) {
  let task = first;
  const deadline = Date.now() + 600_000;
  while (task && !task.completed && task.running !== false && Date.now() < deadline) {
    report(task);
    await new Promise((resolve) => setTimeout(resolve, Math.min(Number(task.intervalToPoll) || 500, 1000)));
    task = (await api('GET', `${url}?links=none`)).json;
  }
  report(task);
  return task;
}

const taskFailed = (t) => Boolean(t && (t.taskError || t.progress === 'failed' || /FAILED/.test(t.taskStatus || '')));
const show = (v) => (v === undefined ? '' : v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const mb = (bytes) => (typeof bytes === 'number' ? `${Math.round(bytes / 1048576)} MB` : '');

// ---- sign-in ----

function SignIn({ message, onSignedIn }) {
  const [error, setError] = useState(message);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    credentials = { user: String(form.get('user')), password: String(form.get('password')) };
    setBusy(true);
    try {
      const me = (await api('GET', 'currentUser?links=none')).json;
      sessionStorage.setItem(STORAGE, JSON.stringify(credentials));
      onSignedIn(me);
    } catch (err) {
      credentials = null;
      setError(err.status === 401 ? 'The user name or the password is wrong.' : err.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="sign-in">
    <form onSubmit=${submit} aria-label="Sign in">
      <h1>appserver console</h1>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <label>User name <input name="user" autocomplete="username" required autofocus /></label>
      <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
  </main>`;
}

// ---- charts ----

/** A line of the last values, scaled to its own range. */
function Sparkline({ values, label }) {
  const w = 160;
  const hgt = 36;
  const finite = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  if (finite.length < 2) return html`<svg class="spark" width=${w} height=${hgt} role="img" aria-label=${`${label}: not enough samples yet`}></svg>`;
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const span = max - min || 1;
  const step = w / (HISTORY - 1);
  const start = HISTORY - finite.length;
  const points = finite.map((v, i) => `${((start + i) * step).toFixed(1)},${(hgt - 2 - ((v - min) / span) * (hgt - 4)).toFixed(1)}`).join(' ');
  return html`<svg class="spark" width=${w} height=${hgt} role="img" aria-label=${`${label}, last ${finite.length} samples`} data-chart=${label}>
    <polyline fill="none" stroke="currentColor" stroke-width="1.5" points=${points} />
  </svg>`;
}

// ---- dashboard ----

const SERVERS_QUERY = {
  fields: [],
  links: [],
  children: {
    serverLifeCycleRuntimes: { fields: ['name', 'state'], links: [], children: { tasks: { fields: ['name', 'operation', 'progress', 'running', 'completed', 'taskStatus', 'taskError', 'serverName'], links: [] } } },
    serverRuntimes: {
      fields: ['name', 'state', 'healthState'],
      links: [],
      children: {
        JVMRuntime: { fields: ['heapSizeCurrent', 'heapFreeCurrent'], links: [] },
        threadPoolRuntime: { fields: ['executeThreadTotalCount', 'completedRequestCount', 'hoggingThreadCount'], links: [] },
      },
    },
  },
};

function useDomain(enabled) {
  const [domain, setDomain] = useState(undefined);
  const [error, setError] = useState(undefined);
  const history = useRef(new Map());
  const refresh = useCallback(async () => {
    try {
      const found = (await api('POST', 'domainRuntime/search', SERVERS_QUERY)).json;
      const running = new Map((found.serverRuntimes?.items || []).map((s) => [s.name, s]));
      const now = Date.now();
      for (const [name, s] of running) {
        const h = history.current.get(name) || { heap: [], threads: [], rate: [], last: undefined };
        const used = s.JVMRuntime ? s.JVMRuntime.heapSizeCurrent - s.JVMRuntime.heapFreeCurrent : undefined;
        const completed = s.threadPoolRuntime?.completedRequestCount;
        const rate = h.last && typeof completed === 'number' ? ((completed - h.last.completed) * 1000) / Math.max(1, now - h.last.at) : undefined;
        h.last = typeof completed === 'number' ? { completed, at: now } : h.last;
        for (const [key, v] of [['heap', used], ['threads', s.threadPoolRuntime?.executeThreadTotalCount], ['rate', rate]]) {
          h[key] = [...h[key], v].slice(-HISTORY);
        }
        history.current.set(name, h);
      }
      setDomain({ servers: found.serverLifeCycleRuntimes?.items || [], running, history: history.current, at: now });
      setError(undefined);
    } catch (err) {
      setError(err.message);
    }
  }, []);
  useEffect(() => {
    if (!enabled) return undefined;
    refresh();
    const timer = setInterval(refresh, POLL_MS);
    return () => clearInterval(timer);
  }, [enabled, refresh]);
  return { domain, error, refresh };
}

const LIFECYCLE = ['start', 'suspend', 'resume', 'shutdown', 'forceShutdown'];

function ServerRow({ server, runtime, history, mayOperate, onTask }) {
  const [task, setTask] = useState(undefined);
  const [error, setError] = useState(undefined);
  const run = async (operation) => {
    setError(undefined);
    try {
      const r = await api('POST', `domainRuntime/serverLifeCycleRuntimes/${encodeURIComponent(server.name)}/${operation}`, {}, { Prefer: 'respond-async' });
      const url = r.location || r.json?.links?.find((l) => l.rel === 'job')?.href;
      await followTask(url, r.json, setTask);
      onTask();
    } catch (err) {
      setError(err.message);
    }
  };
  const health = runtime?.healthState?.state;
  const used = runtime?.JVMRuntime ? runtime.JVMRuntime.heapSizeCurrent - runtime.JVMRuntime.heapFreeCurrent : undefined;
  return html`<tr data-server=${server.name}>
    <th scope="row">${server.name}</th>
    <td class=${`state ${String(server.state).toLowerCase()}`} data-field="state">${server.state}</td>
    <td class=${`health ${health || ''}`}>${health || ''}</td>
    <td>${mb(used)}<br /><${Sparkline} values=${history?.heap || []} label=${`heap ${server.name}`} /></td>
    <td>${runtime?.threadPoolRuntime?.executeThreadTotalCount ?? ''}<br /><${Sparkline} values=${history?.threads || []} label=${`threads ${server.name}`} /></td>
    <td><${Sparkline} values=${history?.rate || []} label=${`requests ${server.name}`} /></td>
    <td class="actions">
      ${mayOperate && LIFECYCLE.map((op) => html`<button type="button" data-op=${op} onClick=${() => run(op)}>${op}</button>`)}
      ${task && html`<div class=${`task ${task.completed ? (taskFailed(task) ? 'failed' : 'done') : 'running'}`} data-task=${task.operation}>
        <progress max="1" value=${task.completed ? 1 : undefined}></progress>
        ${' '}${task.taskStatus} ${task.progress}${taskFailed(task) ? `: ${show(task.taskError)}` : ''}
      </div>`}
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </td>
  </tr>`;
}

function Dashboard({ user }) {
  const { domain, error, refresh } = useDomain(true);
  const [activations, setActivations] = useState([]);
  const [clusters, setClusters] = useState([]);
  useEffect(() => {
    api('GET', 'edit/changeManager/activations?links=none')
      .then((r) => setActivations((r.json.items || []).slice(-5).reverse()))
      .catch(() => setActivations([]));
    api('GET', 'domainConfig/clusters?links=none&fields=name,servers')
      .then((r) => setClusters(r.json.items || []))
      .catch(() => setClusters([]));
  }, [domain?.at && Math.floor(domain.at / 10000)]);
  const mayOperate = user.roles.includes('Admin') || user.roles.includes('Operator');
  const tasks = (domain?.servers || []).flatMap((s) => (s.tasks?.items || []).filter((t) => t.running));
  const stateOf = new Map((domain?.servers || []).map((s) => [s.name, s.state]));
  return html`<section aria-labelledby="servers-h">
      <h2 id="servers-h">Servers</h2>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${!domain ? html`<p>Reading the domain…</p>` : html`<div class="scroll"><table class="servers">
        <thead><tr><th>Server</th><th>State</th><th>Health</th><th>Heap used</th><th>Threads</th><th>Requests/s</th><th>Lifecycle</th></tr></thead>
        <tbody>${domain.servers.map((s) => html`<${ServerRow} key=${s.name} server=${s} runtime=${domain.running.get(s.name)} history=${domain.history.get(s.name)} mayOperate=${mayOperate} onTask=${refresh} />`)}</tbody>
      </table></div>`}
    </section>
    <section aria-labelledby="clusters-h">
      <h2 id="clusters-h">Clusters</h2>
      <ul class="clusters">${clusters.map((c) => {
        // Derived references come as {identity}, plain references as identity arrays.
        const members = (c.servers || []).map((ref) => (Array.isArray(ref) ? ref : ref.identity || [])).map((id) => id[id.length - 1]);
        const up = members.filter((m) => stateOf.get(m) === 'RUNNING').length;
        return html`<li data-cluster=${c.name}><strong>${c.name}</strong> ${up} of ${members.length} running (${members.join(', ')})</li>`;
      })}</ul>
    </section>
    <section aria-labelledby="tasks-h">
      <h2 id="tasks-h">Running tasks</h2>
      ${tasks.length === 0 ? html`<p>None.</p>` : html`<ul>${tasks.map((t) => html`<li>${t.serverName}: ${t.operation} (${t.progress})</li>`)}</ul>`}
    </section>
    <section aria-labelledby="activations-h">
      <h2 id="activations-h">Recent activations</h2>
      ${activations.length === 0 ? html`<p>None yet.</p>` : html`<ul class="activations">${activations.map((a) => html`<li>${a.completionTime || a.time || ''} ${a.user || ''}: ${(a.changes || []).length} change${(a.changes || []).length === 1 ? '' : 's'}</li>`)}</ul>`}
    </section>`;
}

// ---- change center ----

const PLAIN = ['string', 'boolean', 'int', 'long', 'double'];

function ChangeCenter({ user }) {
  const [cm, setCm] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [path, setPath] = useState('servers/ms1');
  const [bean, setBean] = useState(undefined);
  const [edits, setEdits] = useState({});
  const load = useCallback(async () => {
    try {
      setCm((await api('GET', 'edit/changeManager?links=none')).json);
    } catch (err) {
      setError(err.message);
    }
  }, []);
  useEffect(() => {
    load();
  }, [load]);
  const act = (action) => async () => {
    setError(undefined);
    try {
      await api('POST', `edit/changeManager/${action}`, {});
      setEdits({});
      await load();
      if (bean) await open();
    } catch (err) {
      setError(`${action}: ${err.message}`);
    }
  };
  const open = async (event) => {
    event?.preventDefault();
    setError(undefined);
    try {
      const url = `edit/${path.split('/').map(encodeURIComponent).join('/')}`;
      const [values, description] = await Promise.all([api('GET', `${url}?links=none`), api('GET', `${url}?describe`)]);
      setBean({ url, values: values.json, properties: (description.json.properties || []).filter((p) => p.writable && !p.array && !p.encrypted && PLAIN.includes(p.type)) });
      setEdits({});
    } catch (err) {
      setBean(undefined);
      setError(err.message);
    }
  };
  const save = async () => {
    setError(undefined);
    try {
      await api('POST', bean.url, edits);
      await load();
      await open();
    } catch (err) {
      setError(`Not saved: ${err.message}`);
    }
  };
  if (!cm) return html`<p>Reading the change manager…</p>`;
  const mine = cm.locked && cm.lockOwner === user.user;
  const mayEdit = user.roles.includes('Admin');
  return html`<section aria-labelledby="cc-h">
    <h2 id="cc-h">Change center</h2>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <p class="lock">${cm.locked ? `Edit session held by ${cm.lockOwner}${cm.hasChanges ? ', with changes not yet activated' : ''}.` : 'No edit session is open.'}</p>
    ${mayEdit && html`<div class="buttons">
      ${!cm.locked && html`<button type="button" id="start-edit" onClick=${act('startEdit')}>Start edit</button>`}
      ${mine && html`<button type="button" id="activate" onClick=${act('activate')}>Activate changes</button>
      <button type="button" id="cancel-edit" onClick=${act('cancelEdit')}>Undo all changes</button>`}
    </div>`}
    ${mine && (cm.pendingChanges || []).length > 0 && html`<table class="diff" aria-label="Pending changes">
      <thead><tr><th>Bean</th><th>Change</th><th>Property</th><th>Old</th><th>New</th></tr></thead>
      <tbody>${cm.pendingChanges.flatMap((c) => (c.properties && c.properties.length ? c.properties : [{}]).map((p) => html`<tr>
        <td>${(c.identity || []).join('/')}</td><td>${c.operation}</td><td>${p.name || ''}${p.restartRequired ? ' (restart needed)' : ''}</td><td>${show(p.oldValue)}</td><td>${show(p.newValue)}</td></tr>`))}</tbody>
    </table>`}
    ${mine && html`<form class="open-bean" onSubmit=${open}>
      <label>Bean <input name="path" value=${path} onInput=${(e) => setPath(e.target.value)} aria-label="bean path" /></label>
      <button type="submit">Open</button>
    </form>`}
    ${mine && bean && html`<div class="bean-editor">
      <h3>${bean.values.name || bean.url}</h3>
      <table class="properties"><tbody>${bean.properties.map((p) => html`<tr>
        <th scope="row"><label for=${`p-${p.name}`}>${p.name}</label>${p.restartNeeded ? html` <span class="restart" title="needs a restart">↻</span>` : ''}</th>
        <td>${editorFor(p, p.name in edits ? edits[p.name] : bean.values[p.name], (v) => setEdits({ ...edits, [p.name]: v }))}</td>
      </tr>`)}</tbody></table>
      <button type="button" id="save" onClick=${save} disabled=${Object.keys(edits).length === 0}>Save changes</button>
    </div>`}
  </section>`;
}

function editorFor(p, value, set) {
  const id = `p-${p.name}`;
  if (Array.isArray(p.legalValues) && p.legalValues.length > 0) {
    return html`<select id=${id} name=${p.name} onChange=${(e) => set(e.target.value)}>${p.legalValues.map((v) => html`<option value=${v} selected=${v === value}>${v}</option>`)}</select>`;
  }
  if (p.type === 'boolean') return html`<input id=${id} name=${p.name} type="checkbox" checked=${value === true} onChange=${(e) => set(e.target.checked)} />`;
  if (p.type === 'int' || p.type === 'long' || p.type === 'double') {
    return html`<input id=${id} name=${p.name} type="number" value=${value ?? ''} onInput=${(e) => set(e.target.value === '' ? null : Number(e.target.value))} />`;
  }
  return html`<input id=${id} name=${p.name} type="text" value=${value ?? ''} placeholder=${p.default ?? ''} onInput=${(e) => set(e.target.value)} />`;
}

// ---- the frame ----

const VIEWS = [
  { id: 'dashboard', label: 'Dashboard', view: Dashboard },
  { id: 'changes', label: 'Change center', view: ChangeCenter },
];

function App() {
  const [user, setUser] = useState(undefined);
  const [message, setMessage] = useState(undefined);
  const [view, setView] = useState(location.hash.slice(1) || 'dashboard');
  const [theme, setTheme] = useState(localStorage.getItem('appserver-console-theme') || 'auto');
  useEffect(() => {
    onSignedOut = (text) => {
      setUser(undefined);
      setMessage(text);
    };
    if (credentials) {
      api('GET', 'currentUser?links=none')
        .then((r) => setUser(r.json))
        .catch(() => signOut(undefined));
    }
    const onHash = () => setView(location.hash.slice(1) || 'dashboard');
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('appserver-console-theme', theme);
  }, [theme]);
  if (!user) return html`<${SignIn} message=${message} onSignedIn=${(me) => { setMessage(undefined); setUser(me); }} />`;
  const current = VIEWS.find((v) => v.id === view) || VIEWS[0];
  const View = current.view;
  return html`<header>
      <strong class="brand">appserver console</strong>
      <nav aria-label="Views">${VIEWS.map((v) => html`<a href=${`#${v.id}`} aria-current=${v.id === current.id ? 'page' : undefined}>${v.label}</a>`)}</nav>
      <span class="who" data-user=${user.user}>${user.user} (${(user.roles || []).join(', ') || 'no role'})</span>
      <button type="button" class="theme" onClick=${() => setTheme(theme === 'dark' ? 'light' : 'dark')} aria-label="Switch between light and dark">${theme === 'dark' ? 'Light' : 'Dark'}</button>
      <button type="button" id="sign-out" onClick=${() => signOut(undefined)}>Sign out</button>
    </header>
    <main id="view" data-view=${current.id}><${View} user=${user} /></main>`;
}

render(html`<${App} />`, document.getElementById('app'));
