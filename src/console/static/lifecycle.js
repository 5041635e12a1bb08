// Lifecycle of clusters, partitions and resource groups (servers have theirs on the dashboard):
// their states read every 2 s with one search, and their operations offered to the roles that
// may run them, each followed as a task until it ends.
import { useCallback, useEffect, useState } from './vendor/hooks.mjs';
import { api, hasRole, html } from './lib.js';
import { allowed, LIFECYCLES, OperationButtons, runTask, TaskProgress, taskPhase, useTask } from './tasks.js';

const POLL_MS = 2000;
/** Rows a list shows at first and adds on request: a domain may have hundreds of partitions. */
const PAGE = 25;

const STATES_QUERY = {
  fields: [],
  links: [],
  children: {
    serverLifeCycleRuntimes: { fields: ['name', 'state'], links: [] },
    domainPartitionRuntimes: {
      fields: ['name'],
      links: [],
      children: {
        partitionLifeCycleRuntime: {
          fields: ['state', 'subState'],
          links: [],
          children: { resourceGroupLifeCycleRuntimes: { fields: ['name', 'state'], links: [] } },
        },
      },
    },
    resourceGroupLifeCycleRuntimes: { fields: ['name', 'state'], links: [] },
  },
};

const seg = encodeURIComponent;
const lastOf = (ref) => {
  const id = Array.isArray(ref) ? ref : ref?.identity || [];
  return id[id.length - 1];
};
/** A partition's state as its state machine knows it: SHUTDOWN is BOOTED or HALTED. */
const detailed = (p) => (p.state === 'SHUTDOWN' && p.subState ? p.subState : p.state);
const stateClass = (state) => `state ${String(state).toLowerCase()}`;

function useStates() {
  const [states, setStates] = useState(undefined);
  const [error, setError] = useState(undefined);
  const refresh = useCallback(async () => {
    try {
      const [found, clusters] = await Promise.all([
        api('POST', 'domainRuntime/search', STATES_QUERY),
        api('GET', 'domainConfig/clusters?links=none&fields=name,servers'),
      ]);
      const j = found.json;
      setStates({
        servers: new Map((j.serverLifeCycleRuntimes?.items || []).map((s) => [s.name, s.state])),
        clusters: (clusters.json.items || []).map((c) => ({ name: c.name, members: (c.servers || []).map(lastOf).filter(Boolean) })),
        partitions: (j.domainPartitionRuntimes?.items || []).map((p) => ({
          name: p.name,
          state: p.partitionLifeCycleRuntime?.state,
          subState: p.partitionLifeCycleRuntime?.subState,
          groups: p.partitionLifeCycleRuntime?.resourceGroupLifeCycleRuntimes?.items || [],
        })),
        groups: j.resourceGroupLifeCycleRuntimes?.items || [],
      });
      setError(undefined);
    } catch (err) {
      setError(err.message);
    }
  }, []);
  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  return { states, error, refresh };
}

/**
 * A cluster has no lifecycle of its own on the server: an operation on it runs on each member whose
 * state allows it, one task per member, shown together with the share of them that has ended.
 */
function ClusterRow({ cluster, servers, mayOperate, onEnd }) {
  const [run, setRun] = useState(undefined);
  const states = cluster.members.map((m) => servers.get(m));
  const up = states.filter((s) => s === 'RUNNING').length;
  const start = async (op) => {
    const members = cluster.members.filter((m) => allowed('server', op, servers.get(m)));
    const progress = { op, members, tasks: {}, errors: {} };
    setRun({ ...progress });
    await Promise.all(members.map(async (m) => {
      try {
        await runTask(`domainRuntime/serverLifeCycleRuntimes/${seg(m)}/${op}`, {}, (t) => {
          progress.tasks[m] = t;
          setRun({ ...progress, tasks: { ...progress.tasks } });
        });
      } catch (err) {
        progress.errors[m] = err.message;
        setRun({ ...progress, errors: { ...progress.errors } });
      }
    }));
    onEnd();
  };
  const ended = run ? run.members.filter((m) => run.errors[m] || (run.tasks[m] && taskPhase(run.tasks[m]) !== 'running')).length : 0;
  const failed = run ? run.members.filter((m) => run.errors[m] || (run.tasks[m] && taskPhase(run.tasks[m]) === 'failed')).length : 0;
  // Offered when some member's state allows it.
  const some = cluster.members.map((m) => servers.get(m));
  return html`<tr data-cluster=${cluster.name}>
    <th scope="row">${cluster.name}</th>
    <td data-field="summary">${up} of ${cluster.members.length} running</td>
    <td><ul class="members">${cluster.members.map((m) => html`<li data-member=${m}>${m} <span class=${stateClass(servers.get(m))}>${servers.get(m) || '?'}</span></li>`)}</ul></td>
    <td class="actions">
      ${mayOperate && html`<span class="op-buttons">${Object.keys(LIFECYCLES.server).map((op) => html`<button type="button" data-op=${op}
        disabled=${!some.some((s) => allowed('server', op, s))} aria-label=${`${op} cluster ${cluster.name}`} onClick=${() => start(op)}>${op}</button>`)}</span>`}
      ${run && html`<div class=${`cluster-run ${ended === run.members.length ? (failed ? 'failed' : 'done') : 'running'}`} data-run=${run.op}>
        <progress max=${Math.max(1, run.members.length)} value=${run.members.length ? ended : 1} aria-label=${`${run.op} ${cluster.name}: ${ended} of ${run.members.length} ended`}></progress>
        ${' '}${run.op}: ${ended} of ${run.members.length} member${run.members.length === 1 ? '' : 's'} ended${failed ? `, ${failed} failed` : ''}
        ${run.members.length === 0 ? html`<p>No member's state allows ${run.op}.</p>` : ''}
        <ul class="member-tasks">${run.members.map((m) => html`<li data-member-task=${m}>${m}: <${TaskProgress} task=${run.tasks[m]} error=${run.errors[m]} label=${m} /></li>`)}</ul>
      </div>`}
    </td>
  </tr>`;
}

function GroupRow({ group, partition, mayOperate, onEnd }) {
  const { task, error, run } = useTask(onEnd);
  const base = partition
    ? `domainRuntime/domainPartitionRuntimes/${seg(partition)}/partitionLifeCycleRuntime/resourceGroupLifeCycleRuntimes/${seg(group.name)}`
    : `domainRuntime/resourceGroupLifeCycleRuntimes/${seg(group.name)}`;
  return html`<tr data-group=${group.name} data-partition=${partition || ''}>
    <th scope="row" class="group-name">${group.name}</th>
    <td class=${stateClass(group.state)} data-field="state">${group.state}</td>
    <td class="actions">
      ${mayOperate && html`<${OperationButtons} kind="resourceGroup" state=${group.state} what=${`resource group ${group.name}`} onRun=${(op) => run(`${base}/${op}`)} />`}
      <${TaskProgress} task=${task} error=${error} label=${group.name} />
    </td>
  </tr>`;
}

function PartitionRows({ partition, mayOperate, onEnd }) {
  const { task, error, run } = useTask(onEnd);
  const state = detailed(partition);
  return html`<tr data-partition-row=${partition.name} class="partition">
      <th scope="row">${partition.name}</th>
      <td class=${stateClass(partition.state)} data-field="state">${partition.state}${partition.subState ? ` (${partition.subState})` : ''}</td>
      <td class="actions">
        ${mayOperate && html`<${OperationButtons} kind="partition" state=${state} what=${`partition ${partition.name}`}
          onRun=${(op) => run(`domainRuntime/domainPartitionRuntimes/${seg(partition.name)}/partitionLifeCycleRuntime/${op}`)} />`}
        <${TaskProgress} task=${task} error=${error} label=${partition.name} />
      </td>
    </tr>
    ${partition.groups.map((g) => html`<${GroupRow} key=${g.name} group=${g} partition=${partition.name} mayOperate=${mayOperate} onEnd=${onEnd} />`)}`;
}

/**
 * A long list shows PAGE rows at a time with a filter by name; `names(item)` are the names the
 * filter looks at. Answers the rows to show, the filter (only when the list is long) and the
 * button for more.
 */
function usePaged(items, names, what) {
  const [text, setText] = useState('');
  const [shown, setShown] = useState(PAGE);
  const needle = text.trim().toLowerCase();
  const matching = needle ? items.filter((item) => names(item).some((n) => n.toLowerCase().includes(needle))) : items;
  const long = items.length > PAGE;
  return {
    rows: matching.slice(0, shown),
    filter: long && html`<label class="filter">Filter ${what} by name <input type="search" value=${text} onInput=${(e) => { setText(e.target.value); setShown(PAGE); }} /></label>
      <span class="muted" data-count=${what}> ${Math.min(shown, matching.length)} of ${matching.length} shown</span>`,
    more: matching.length > shown && html`<button type="button" class="more" onClick=${() => setShown(shown + PAGE)}>Show ${Math.min(PAGE, matching.length - shown)} more ${what}</button>`,
  };
}

export function Lifecycle({ user }) {
  const { states, error, refresh } = useStates();
  const mayOperate = hasRole(user, 'Admin', 'Operator');
  const clusters = usePaged(states?.clusters || [], (c) => [c.name, ...c.members], 'clusters');
  const partitions = usePaged(states?.partitions || [], (p) => [p.name, ...p.groups.map((g) => g.name)], 'partitions');
  if (!states) return html`${error ? html`<p class="error" role="alert">${error}</p>` : html`<p>Reading the domain's states…</p>`}`;
  return html`${error && html`<p class="error" role="alert">${error}</p>`}
    <p class="hint">Servers are started and stopped on the <a href="#dashboard">dashboard</a>.${mayOperate ? '' : ' Your role may look, not operate.'}</p>
    <section aria-labelledby="lc-clusters-h">
      <h2 id="lc-clusters-h">Clusters</h2>
      ${clusters.filter}
      ${states.clusters.length === 0 ? html`<p>No cluster.</p>` : html`<div class="scroll"><table class="clusters">
        <thead><tr><th>Cluster</th><th>Running</th><th>Members</th><th>Lifecycle</th></tr></thead>
        <tbody>${clusters.rows.map((c) => html`<${ClusterRow} key=${c.name} cluster=${c} servers=${states.servers} mayOperate=${mayOperate} onEnd=${refresh} />`)}</tbody>
      </table></div>`}
      ${clusters.more}
    </section>
    <section aria-labelledby="lc-partitions-h">
      <h2 id="lc-partitions-h">Partitions and their resource groups</h2>
      ${partitions.filter}
      ${states.partitions.length === 0 ? html`<p>No partition.</p>` : html`<div class="scroll"><table class="partitions">
        <thead><tr><th>Partition / resource group</th><th>State</th><th>Lifecycle</th></tr></thead>
        <tbody>${partitions.rows.map((p) => html`<${PartitionRows} key=${p.name} partition=${p} mayOperate=${mayOperate} onEnd=${refresh} />`)}</tbody>
      </table></div>`}
      ${partitions.more}
    </section>
    ${states.groups.length > 0 && html`<section aria-labelledby="lc-groups-h">
      <h2 id="lc-groups-h">Resource groups of the domain</h2>
      <div class="scroll"><table class="groups">
        <thead><tr><th>Resource group</th><th>State</th><th>Lifecycle</th></tr></thead>
        <tbody>${states.groups.map((g) => html`<${GroupRow} key=${g.name} group=${g} mayOperate=${mayOperate} onEnd=${refresh} />`)}</tbody>
      </table></div>
    </section>`}`;
}
