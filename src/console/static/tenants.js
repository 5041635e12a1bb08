// The Lifecycle Manager's tenants: each with its top-level directory and its services, and each
// service with its environment and its PDB. Administrators create and delete tenants and services,
// point a service at an environment (or at none), and add or remove a service's PDB; every other
// role reads.
import { useState } from './vendor/hooks.mjs';
import { api, html, LIFECYCLE, TwoStep } from './lib.js';

const seg = encodeURIComponent;

/** A service's PDB, or null when it has none (the interface answers 404 then). */
async function readPdb(path) {
  try {
    return (await api('GET', `${path}/PDB?links=none`)).json;
  } catch (err) {
    if (err.status === 404) return null;
    throw err;
  }
}

/** The tenants, their services and the services' PDBs (a domain has few of each). */
export async function readTenants() {
  const tenants = (await api('GET', `${LIFECYCLE}/tenants?links=none`)).json.items || [];
  return Promise.all(tenants.map(async (t) => {
    const path = `${LIFECYCLE}/tenants/${seg(t.name)}/services`;
    const services = (await api('GET', `${path}?links=none`)).json.items || [];
    return { ...t, services: await Promise.all(services.map(async (s) => ({ ...s, pdb: await readPdb(`${path}/${seg(s.name)}`) }))) };
  }));
}

const environmentChoices = (environments, value) => html`<option value="" selected=${!value}>none</option>
  ${environments.map((e) => html`<option value=${e} selected=${e === value}>${e}</option>`)}`;

function ServiceRow({ tenant, service, environments, mayWrite, act }) {
  const [pdbName, setPdbName] = useState('');
  const path = `${LIFECYCLE}/tenants/${seg(tenant)}/services/${seg(service.name)}`;
  const addPdb = (event) => {
    event.preventDefault();
    const n = pdbName.trim();
    if (n) act(`add PDB ${n} to ${service.name}`, 'POST', `${path}/PDB`, { name: n }).then((ok) => ok && setPdbName(''));
  };
  const pointAt = (event) => {
    const env = event.target.value;
    act(env ? `point ${service.name} at ${env}` : `detach ${service.name} from its environment`, 'POST', path, { environmentRef: env || null });
  };
  const pdb = service.pdb;
  return html`<tr data-service=${service.name}>
    <th scope="row">${service.name}</th>
    <td>${service.serviceType || ''}</td>
    <td>${mayWrite
      ? html`<select onChange=${pointAt} aria-label=${`environment of ${service.name}`}>${environmentChoices(environments, service.environmentRef)}</select>`
      : service.environmentRef || 'none'}</td>
    <td data-pdb=${pdb ? pdb.name : ''}>${pdb
      ? html`${pdb.name} <span class="muted">${pdb.status}</span>
        ${mayWrite && html` <${TwoStep} label="Remove" what=${`PDB ${pdb.name}`} onConfirm=${() => act(`remove PDB ${pdb.name}`, 'DELETE', `${path}/PDB`)} />`}`
      : mayWrite
        ? html`<form class="inline" onSubmit=${addPdb}>
            <input value=${pdbName} onInput=${(e) => setPdbName(e.target.value)} aria-label=${`new PDB of ${service.name}`} placeholder="new PDB" maxlength="200" required />
            <button type="submit" aria-label=${`add the PDB to ${service.name}`}>Add</button>
          </form>`
        : 'none'}</td>
    ${mayWrite && html`<td><${TwoStep} label="Delete" what=${`service ${service.name}`} onConfirm=${() => act(`delete service ${service.name}`, 'DELETE', path)} /></td>`}
  </tr>`;
}

const NO_SERVICE = { name: '', serviceType: 'JaaS', environmentRef: '' };

function Tenant({ tenant, environments, mayWrite, act }) {
  const [form, setForm] = useState(NO_SERVICE);
  const path = `${LIFECYCLE}/tenants/${seg(tenant.name)}`;
  const set = (key) => (e) => setForm({ ...form, [key]: e.target.value });
  const addService = (event) => {
    event.preventDefault();
    const n = form.name.trim();
    if (!n) return;
    const body = { name: n, serviceType: form.serviceType.trim() || 'JaaS', ...(form.environmentRef ? { environmentRef: form.environmentRef } : {}) };
    act(`add service ${n} to ${tenant.name}`, 'POST', `${path}/services`, body).then((ok) => ok && setForm(NO_SERVICE));
  };
  const heading = `tenant-${tenant.name}`;
  return html`<article class="tenant" data-tenant=${tenant.name} aria-labelledby=${heading}>
    <h3 id=${heading}>${tenant.name}</h3>
    <p class="muted">${tenant.topLevelDir ? `Top-level directory ${tenant.topLevelDir}` : 'No top-level directory'}</p>
    ${tenant.services.length === 0 ? html`<p>No service.</p>` : html`<div class="scroll"><table class="services">
      <thead><tr><th>Service</th><th>Type</th><th>Environment</th><th>PDB</th>${mayWrite && html`<th><span class="visually-hidden">Delete</span></th>`}</tr></thead>
      <tbody>${tenant.services.map((s) => html`<${ServiceRow} key=${s.name} tenant=${tenant.name} service=${s} environments=${environments} mayWrite=${mayWrite} act=${act} />`)}</tbody>
    </table></div>`}
    ${mayWrite && html`<form class="inline" onSubmit=${addService}>
      <label>New service <input value=${form.name} onInput=${set('name')} aria-label=${`new service of ${tenant.name}`} required maxlength="200" /></label>
      <label>Type <input value=${form.serviceType} onInput=${set('serviceType')} maxlength="100" /></label>
      <label>Environment <select onChange=${set('environmentRef')} aria-label=${`environment of the new service of ${tenant.name}`}>${environmentChoices(environments, form.environmentRef)}</select></label>
      <button type="submit" aria-label=${`add the service to ${tenant.name}`}>Add</button>
    </form>
    <div class="buttons"><${TwoStep} label="Delete" what=${`tenant ${tenant.name}`} onConfirm=${() => act(`delete tenant ${tenant.name}`, 'DELETE', path)} /></div>`}
  </article>`;
}

export function Tenants({ tenants, environments, mayWrite, act }) {
  const [name, setName] = useState('');
  const [dir, setDir] = useState('');
  const create = (event) => {
    event.preventDefault();
    const n = name.trim();
    if (!n) return;
    act(`create tenant ${n}`, 'POST', `${LIFECYCLE}/tenants`, { name: n, ...(dir.trim() ? { topLevelDir: dir.trim() } : {}) })
      .then((ok) => ok && (setName(''), setDir('')));
  };
  return html`<section aria-labelledby="lcm-tenants-h">
    <h2 id="lcm-tenants-h">Tenants</h2>
    ${mayWrite && html`<form class="inline" onSubmit=${create}>
      <label>New tenant <input name="tenant" value=${name} onInput=${(e) => setName(e.target.value)} required maxlength="200" /></label>
      <label>Top-level directory <input name="topLevelDir" value=${dir} onInput=${(e) => setDir(e.target.value)} maxlength="1000" /></label>
      <button type="submit" aria-label="create the tenant">Create</button>
    </form>`}
    ${tenants.length === 0 ? html`<p>No tenant yet.</p>` : html`<div class="cards">${tenants.map((t) => html`<${Tenant} key=${t.name} tenant=${t} environments=${environments} mayWrite=${mayWrite} act=${act} />`)}</div>`}
  </section>`;
}
