// The Lifecycle Manager (/management/lifecycle/latest): environments with their partitions and the
// associations between them, the runtimes with their partitions, and the tenants with their
// services (tenants.js). Administrators may create and delete environments, add and remove their
// partitions, associate or dissociate two of them, register and unregister runtimes and create or
// remove a runtime's partitions; every other role reads.
import { useCallback, useEffect, useState } from './vendor/hooks.mjs';
import { api, hasRole, html, LIFECYCLE, TwoStep } from './lib.js';
import { readTenants, Tenants } from './tenants.js';

export const LC = LIFECYCLE;
const seg = encodeURIComponent;
const pkey = (p) => `${p.runtimeName}/${p.name}`;

/** Everything the view shows, read in one go (the environments and runtimes of a domain are few). */
async function readAll() {
  const [envs, runtimes, tenants] = await Promise.all([api('GET', `${LC}/environments?links=none`), api('GET', `${LC}/runtimes?links=none`), readTenants()]);
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
  return { environments, runtimes: rts, tenants };
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
    if (p) act(`add ${adding} to ${env.name}`, 'POST', `${envPath}/partitions`, { name: p.name, runtimeName: p.runtimeName }).then((ok) => ok && setAdding(''));
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
    ${mayWrite && html`<div class="buttons">
      ${env.associations.length > 0 && html`<${TwoStep} label="Deprovision" what=${env.name} onConfirm=${() => act(`deprovision ${env.name}`, 'POST', `${envPath}/deprovision`, {})} />`}
      <${TwoStep} label="Delete" what=${env.name} onConfirm=${() => act(`delete ${env.name}`, 'DELETE', envPath)} />
    </div>`}
  </article>`;
}

function RuntimeRow({ runtime, local, mayWrite, act }) {
  const [partition, setPartition] = useState('');
  const path = `${LC}/runtimes/${seg(runtime.name)}`;
  const create = (event) => {
    event.preventDefault();
    const n = partition.trim();
    if (n) act(`create partition ${n} on ${runtime.name}`, 'POST', `${path}/partitions`, { name: n, properties: [] }).then((ok) => ok && setPartition(''));
  };
  return html`<tr data-runtime=${runtime.name}>
    <th scope="row">${runtime.name}${local ? html` <span class="muted">(this domain)</span>` : ''}</th><td>${runtime.type}</td>
    <td>${runtime.protocol ? `${runtime.protocol}://` : ''}${runtime.hostName || ''}${runtime.port ? `:${runtime.port}` : ''}</td>
    <td>${runtime.error ? html`<span class="error">${runtime.error}</span>`
      : runtime.partitions.length === 0 ? 'none'
      : html`<ul class="runtime-partitions">${runtime.partitions.map((p) => html`<li data-runtime-partition=${p.name}>${p.name}
        ${mayWrite && html` <${TwoStep} label="Remove" what=${`${runtime.name}/${p.name}`} onConfirm=${() => act(`remove partition ${p.name} of ${runtime.name}`, 'DELETE', `${path}/partitions/${seg(p.name)}`)} />`}</li>`)}</ul>`}
      ${mayWrite && html`<form class="inline" onSubmit=${create}>
        <input value=${partition} onInput=${(e) => setPartition(e.target.value)} aria-label=${`new partition on ${runtime.name}`} placeholder="new partition" maxlength="200" required />
        <button type="submit" aria-label=${`create the partition on ${runtime.name}`}>Create</button>
      </form>`}
    </td>
    ${mayWrite && html`<td>${!local && html`<${TwoStep} label="Unregister" what=${runtime.name} onConfirm=${() => act(`unregister ${runtime.name}`, 'DELETE', path)} />`}</td>`}
  </tr>`;
}

const NO_RUNTIME = { name: '', type: 'wls', hostName: '', port: '7001', protocol: 'http', username: '', password: '' };

/** Registers a runtime: another domain (wls), a traffic director (otd) or a database that holds PDBs. */
function RegisterRuntime({ act }) {
  const [form, setForm] = useState(NO_RUNTIME);
  const set = (key) => (e) => setForm({ ...form, [key]: e.target.value });
  const submit = (event) => {
    event.preventDefault();
    const properties = [
      ...(form.username ? [{ name: 'username', value: form.username }] : []),
      ...(form.password ? [{ name: 'password', confidentialValue: form.password }] : []),
    ];
    const port = Number(form.port);
    act(`register runtime ${form.name}`, 'POST', `${LC}/runtimes`, { name: form.name.trim(), type: form.type, hostName: form.hostName.trim(), port: Number.isInteger(port) ? port : form.port, protocol: form.protocol, properties })
      .then((ok) => ok && setForm(NO_RUNTIME));
  };
  return html`<details class="register-runtime"><summary>Register a runtime</summary>
    <form class="inline" onSubmit=${submit}>
      <label>Name <input value=${form.name} onInput=${set('name')} required maxlength="200" /></label>
      <label>Type <select value=${form.type} onChange=${set('type')}>${['wls', 'database', 'otd'].map((t) => html`<option value=${t} selected=${t === form.type}>${t}</option>`)}</select></label>
      <label>Host <input value=${form.hostName} onInput=${set('hostName')} required maxlength="253" /></label>
      <label>Port <input type="number" min="1" max="65535" value=${form.port} onInput=${set('port')} required /></label>
      <label>Protocol <select value=${form.protocol} onChange=${set('protocol')}>${['http', 'https', 'tcp'].map((t) => html`<option value=${t} selected=${t === form.protocol}>${t}</option>`)}</select></label>
      <label>User name <input value=${form.username} onInput=${set('username')} autocomplete="off" /></label>
      <label>Password <input type="password" value=${form.password} onInput=${set('password')} autocomplete="new-password" /></label>
      <button type="submit">Register</button>
    </form>
  </details>`;
}

export function LifecycleManager({ user }) {
  const [data, setData] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [done, setDone] = useState(undefined);
  const [name, setName] = useState('');
  const [domain, setDomain] = useState(undefined);
  const mayWrite = hasRole(user, 'Admin');
  useEffect(() => {
    api('GET', 'domainConfig?links=none&fields=name').then((r) => setDomain(r.json.name), () => setDomain(undefined));
  }, []);
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
    let ok = false;
    try {
      await api(method, path, body);
      setDone(`Done: ${what}.`);
      ok = true;
    } catch (err) {
      setError(`${what}: ${err.message}`);
    }
    await load();
    return ok;
  };
  const create = (event) => {
    event.preventDefault();
    const n = name.trim();
    if (n) act(`create environment ${n}`, 'POST', `${LC}/environments`, { name: n }).then((ok) => ok && setName(''));
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
      ${mayWrite && html`<${RegisterRuntime} act=${act} />`}
      <div class="scroll"><table class="runtimes">
        <thead><tr><th>Runtime</th><th>Type</th><th>Address</th><th>Partitions</th>${mayWrite && html`<th><span class="visually-hidden">Unregister</span></th>`}</tr></thead>
        <tbody>${data.runtimes.map((r) => html`<${RuntimeRow} key=${r.name} runtime=${r} local=${r.name === domain} mayWrite=${mayWrite} act=${act} />`)}</tbody>
      </table></div>
    </section>
    <${Tenants} tenants=${data.tenants} environments=${data.environments.map((e) => e.name)} mayWrite=${mayWrite} act=${act} />`}`;
}
