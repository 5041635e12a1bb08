// The Lifecycle Manager (/management/lifecycle/latest): environments with their partitions and the
// associations between them, and the runtimes with their partitions. Administrators may create and
// delete environments, add and remove their partitions, and associate or dissociate two of them;
// every other role reads.
import { useCallback, useEffect, useState } from './vendor/hooks.mjs';
import { api, hasRole, html } from './lib.js';

export const LC = '/management/lifecycle/latest';
const seg = encodeURIComponent;
const pkey = (p) => `${p.runtimeName}/${p.name}`;

/** Everything the view shows, read in one go (the environments and runtimes of a domain are few). */
async function readAll() {
  const [envs, runtimes] = await Promise.all([api('GET', `${LC}/environments?links=none`), api('GET', `${LC}/runtimes?links=none`)]);
  const environments = await Promise.all((envs.json.items || []).map(async (e) => {
    const [one, parts] = await Promise.all([
      api('GET', `${LC}/environments/${seg(e.name)}?links=none`),
      api('GET', `${LC}/environments/${seg(e.name)}/partitions?links=none`),
    ]);
    return { name: e.name, associations: one.json.associations || [], partitions: parts.json.items || [] };
  }));
  const rts = await Promise.all((runtimes.json.items || []).map(async (r) => {
    // A remote runtime is asked for its partitions; when it does not answer, the others still show.
    try {
      return { ...r, partitions: (await api('GET', `${LC}/runtimes/${seg(r.name)}/partitions?links=none`)).json.items || [] };
    } catch (err) {
      return { ...r, partitions: [], error: err.message };
    }
  }));
  return { environments, runtimes: rts };
}

function Association({ a }) {
  return html`<span class="association">${a.partition1RuntimeName}/${a.partition1Name} ↔ ${a.partition2RuntimeName}/${a.partition2Name}</span>`;
}

function Environment({ env, runtimes, mayWrite, act }) {
  const inEnv = new Set(env.partitions.map(pkey));
  const candidates = runtimes.flatMap((r) => r.partitions.map((p) => ({ runtimeName: r.name, name: p.name }))).filter((p) => !inEnv.has(pkey(p)));
  const [adding, setAdding] = useState('');
  const [first, setFirst] = useState('');
  const [second, setSecond] = useState('');
  const [confirm, setConfirm] = useState(false);
  const envPath = `${LC}/environments/${seg(env.name)}`;
  const byKey = new Map(env.partitions.map((p) => [pkey(p), p]));
  const pair = (a) => ({ partition1Name: a.partition1Name, partition1RuntimeName: a.partition1RuntimeName, partition2Name: a.partition2Name, partition2RuntimeName: a.partition2RuntimeName });
  const associate = (event) => {
    event.preventDefault();
    const p1 = byKey.get(first);
    const p2 = byKey.get(second);
    if (!p1 || !p2) return;
    act(`associate ${first} with ${second}`, 'POST', `${envPath}/associatePartitions`, {
      partition1Name: p1.name, partition1RuntimeName: p1.runtimeName, partition2Name: p2.name, partition2RuntimeName: p2.runtimeName, properties: [],
    });
  };
  const add = (event) => {
    event.preventDefault();
    const p = candidates.find((c) => pkey(c) === adding);
    if (p) act(`add ${adding} to ${env.name}`, 'POST', `${envPath}/partitions`, { name: p.name, runtimeName: p.runtimeName }).then(() => setAdding(''));
  };
  const options = (list, value) => list.map((p) => html`<option value=${pkey(p)} selected=${pkey(p) === value}>${pkey(p)}</option>`);
  return html`<article class="environment" data-environment=${env.name} aria-labelledby=${`env-${env.name}`}>
    <h3 id=${`env-${env.name}`}>${env.name}</h3>
    <h4>Partitions</h4>
    ${env.partitions.length === 0 ? html`<p>None.</p>` : html`<ul class="env-partitions">${env.partitions.map((p) => html`<li data-partition=${pkey(p)}>${pkey(p)}
      ${mayWrite && html` <button type="button" class="link" aria-label=${`remove ${pkey(p)} from ${env.name}`}
        onClick=${() => act(`remove ${pkey(p)}`, 'DELETE', `${envPath}/runtimes/${seg(p.runtimeName)}/partitions/${seg(p.name)}`)}>remove</button>`}</li>`)}</ul>`}
    ${mayWrite && candidates.length > 0 && html`<form class="inline" onSubmit=${add}>
      <label>Add a partition <select value=${adding} onChange=${(e) => setAdding(e.target.value)} aria-label=${`partition to add to ${env.name}`}>
        <option value="">choose…</option>${options(candidates, adding)}</select></label>
      <button type="submit" disabled=${!adding}>Add</button>
    </form>`}
    <h4>Associations</h4>
    ${env.associations.length === 0 ? html`<p>None.</p>` : html`<ul class="associations">${env.associations.map((a) => html`<li data-association=${`${a.partition1RuntimeName}/${a.partition1Name}|${a.partition2RuntimeName}/${a.partition2Name}`}>
      <${Association} a=${a} />
      ${mayWrite && html` <button type="button" class="link" aria-label=${`dissociate ${a.partition1Name} and ${a.partition2Name}`}
        onClick=${() => act('dissociate', 'POST', `${envPath}/dissociatePartitions`, pair(a))}>dissociate</button>`}</li>`)}</ul>`}
    ${mayWrite && env.partitions.length > 1 && html`<form class="inline" onSubmit=${associate}>
      <label>Associate <select value=${first} onChange=${(e) => setFirst(e.target.value)} aria-label=${`first partition to associate in ${env.name}`}>
        <option value="">choose…</option>${options(env.partitions, first)}</select></label>
      <label>with <select value=${second} onChange=${(e) => setSecond(e.target.value)} aria-label=${`second partition to associate in ${env.name}`}>
        <option value="">choose…</option>${options(env.partitions.filter((p) => pkey(p) !== first), second)}</select></label>
      <button type="submit" disabled=${!first || !second || first === second}>Associate</button>
    </form>`}
    ${mayWrite && html`<div class="buttons">${confirm
      ? html`<button type="button" class="danger" onClick=${() => act(`delete ${env.name}`, 'DELETE', envPath)}>Delete ${env.name} now</button>
        <button type="button" onClick=${() => setConfirm(false)}>Keep it</button>`
      : html`<button type="button" aria-label=${`delete environment ${env.name}`} onClick=${() => setConfirm(true)}>Delete environment</button>`}</div>`}
  </article>`;
}

export function LifecycleManager({ user }) {
  const [data, setData] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [done, setDone] = useState(undefined);
  const [name, setName] = useState('');
  const mayWrite = hasRole(user, 'Admin');
  const load = useCallback(async () => {
    try {
      setData(await readAll());
    } catch (err) {
      setError(err.message);
    }
  }, []);
  useEffect(() => {
    load();
  }, [load]);
  /** One change; its refusal is shown with what was tried, and the view reads everything again. */
  const act = async (what, method, path, body) => {
    setError(undefined);
    setDone(undefined);
    try {
      await api(method, path, body);
      setDone(`Done: ${what}.`);
    } catch (err) {
      setError(`${what}: ${err.message}`);
    }
    await load();
  };
  const create = (event) => {
    event.preventDefault();
    const n = name.trim();
    if (n) act(`create environment ${n}`, 'POST', `${LC}/environments`, { name: n }).then(() => setName(''));
  };
  return html`${error && html`<p class="error" role="alert">${error}</p>`}
    ${done && html`<p class="done" role="status">${done}</p>`}
    ${!data ? (!error && html`<p>Reading the Lifecycle Manager…</p>`) : html`
    <section aria-labelledby="lcm-env-h">
      <h2 id="lcm-env-h">Environments</h2>
      ${mayWrite && html`<form class="inline" onSubmit=${create}>
        <label>New environment <input name="environment" value=${name} onInput=${(e) => setName(e.target.value)} required maxlength="200" /></label>
        <button type="submit">Create</button>
      </form>`}
      ${data.environments.length === 0 ? html`<p>No environment yet.</p>` : html`<div class="cards">${data.environments.map((e) => html`<${Environment} key=${e.name} env=${e} runtimes=${data.runtimes} mayWrite=${mayWrite} act=${act} />`)}</div>`}
    </section>
    <section aria-labelledby="lcm-rt-h">
      <h2 id="lcm-rt-h">Runtimes</h2>
      <div class="scroll"><table class="runtimes">
        <thead><tr><th>Runtime</th><th>Type</th><th>Address</th><th>Partitions</th></tr></thead>
        <tbody>${data.runtimes.map((r) => html`<tr data-runtime=${r.name}>
          <th scope="row">${r.name}</th><td>${r.type}</td><td>${r.protocol ? `${r.protocol}://` : ''}${r.hostName || ''}${r.port ? `:${r.port}` : ''}</td>
          <td>${r.error ? html`<span class="error">${r.error}</span>` : r.partitions.map((p) => p.name).join(', ') || 'none'}</td>
        </tr>`)}</tbody>
      </table></div>
    </section>`}`;
}
