// The dashboard: servers with state, health and live charts, clusters, running tasks, activations.
import { useCallback, useEffect, useRef, useState } from './vendor/hooks.mjs';
import { HISTORY, Sparkline } from './charts.js';
import { api, hasRole, html, mb, shortTime } from './lib.js';
import { OperationButtons, TaskProgress, useTask } from './tasks.js';
import { summary } from './history.js';

const POLL_MS = 2000;

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

function ServerRow({ server, runtime, history, mayOperate, isAdminServer, onTask }) {
  const { task, error, run } = useTask(onTask);
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
      ${mayOperate && html`<${OperationButtons} kind="server" state=${server.state} what=${server.name}
        except=${isAdminServer ? ['shutdown', 'forceShutdown'] : []}
        onRun=${(op) => run(`domainRuntime/serverLifeCycleRuntimes/${encodeURIComponent(server.name)}/${op}`)} />`}
      <${TaskProgress} task=${task} error=${error} label=${server.name} />
    </td>
  </tr>`;
}

export function Dashboard({ user }) {
  const { domain, error, refresh } = useDomain(true);
  const [activations, setActivations] = useState([]);
  const [clusters, setClusters] = useState([]);
  const [adminServer, setAdminServer] = useState(undefined);
  useEffect(() => {
    api('GET', 'domainConfig?links=none&fields=adminServerName')
      .then((r) => setAdminServer(r.json.adminServerName))
      .catch(() => setAdminServer(undefined));
  }, []);
  useEffect(() => {
    api('GET', 'edit/changeManager/activations?links=none')
      .then((r) => setActivations((r.json.items || []).slice(0, 5)))
      .catch(() => setActivations([]));
    api('GET', 'domainConfig/clusters?links=none&fields=name,servers')
      .then((r) => setClusters(r.json.items || []))
      .catch(() => setClusters([]));
  }, [domain?.at && Math.floor(domain.at / 10000)]);
  const mayOperate = hasRole(user, 'Admin', 'Operator');
  const tasks = (domain?.servers || []).flatMap((s) => (s.tasks?.items || []).filter((t) => t.running));
  const stateOf = new Map((domain?.servers || []).map((s) => [s.name, s.state]));
  return html`<section aria-labelledby="servers-h">
      <h2 id="servers-h">Servers</h2>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${!domain ? html`<p>Reading the domain…</p>` : html`<div class="scroll"><table class="servers">
        <thead><tr><th>Server</th><th>State</th><th>Health</th><th>Heap used</th><th>Threads</th><th>Requests/s</th><th>Lifecycle</th></tr></thead>
        <tbody>${domain.servers.map((s) => html`<${ServerRow} key=${s.name} server=${s} runtime=${domain.running.get(s.name)} history=${domain.history.get(s.name)} mayOperate=${mayOperate} isAdminServer=${s.name === adminServer} onTask=${refresh} />`)}</tbody>
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
      ${tasks.length === 0 ? html`<p>None.</p>` : html`<ul class="running-tasks">${tasks.map((t) => html`<li data-running-task=${t.serverName}>${t.serverName}: <${TaskProgress} task=${t} label=${t.serverName} /></li>`)}</ul>`}
    </section>
    <section aria-labelledby="activations-h">
      <h2 id="activations-h">Recent activations</h2>
      ${activations.length === 0 ? html`<p>None yet.</p>` : html`<ul class="activations">${activations.map((a) => html`<li>${shortTime(a.endTime)} ${a.user || ''}: ${summary(a.changes || [])}</li>`)}</ul>`}
    </section>`;
}
