// Deployments: the domain's applications with their state on each target, its shared libraries, an
// archive upload (an application or a library) with a progress bar, and start, stop, redeploy and
// undeploy, each followed to its end.
// Everything goes through the public REST interface; the view follows the watch stream to stay current.
import { useCallback, useEffect, useRef, useState } from './vendor/hooks.mjs';
import { BASE, CallError, answered, api, callHeaders, followTask, hasRole, html, taskFailed } from './lib.js';
import { TaskProgress, runTask, useTask } from './tasks.js';
import { watchDomain } from './watch.js';

const DM = 'domainRuntime/deploymentManager';
/** Applications shown at once (each costs a state query per target); a filter finds the others. */
const PAGE = 25;
/** A cluster's members are listed one by one up to this many; beyond, its own state says enough. */
const MAX_MEMBERS = 16;
/** The longest an upload may take before the console gives up on it. */
const UPLOAD_TIMEOUT_MS = 30 * 60_000;
const enc = encodeURIComponent;

/** The last name of a reference, as the configuration gives it ({identity} or an identity array). */
const refName = (ref) => {
  const id = Array.isArray(ref) ? ref : ref && Array.isArray(ref.identity) ? ref.identity : [];
  return { collection: id[0], name: id[id.length - 1] };
};
const stateWord = (s) => (s === null || s === undefined ? 'not here' : String(s).replace(/^STATE_/, ''));
const kib = (n) => `${(n / 1024).toFixed(n < 10_240 ? 1 : 0)} KiB`;

/** What the user's roles allow here (the server's table: docs/security.md, Roles). */
const roles = (user) => ({ deploy: hasRole(user, 'Admin', 'Deployer'), startStop: hasRole(user, 'Admin', 'Deployer', 'Operator') });

/** Reads the applications, libraries, servers and clusters; `version` moves when something changed. */
function useDeployments() {
  const [data, setData] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [version, setVersion] = useState(0);
  const load = useCallback(async () => {
    try {
      const [apps, libraries, servers, clusters] = await Promise.all([
        api('GET', 'domainConfig/appDeployments?links=none&fields=name,sourcePath,moduleType,targets'),
        api('GET', 'domainConfig/libraries?links=none&fields=name,sourcePath,targets'),
        api('GET', 'domainConfig/servers?links=none&fields=name'),
        api('GET', 'domainConfig/clusters?links=none&fields=name,servers'),
      ]);
      setData({
        apps: apps.json.items || [],
        libraries: libraries.json.items || [],
        servers: (servers.json.items || []).map((s) => s.name),
        clusters: new Map((clusters.json.items || []).map((c) => [c.name, (c.servers || []).map((r) => refName(r).name)])),
      });
      setError(undefined);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(err.message);
    }
  }, []);
  useEffect(() => {
    let timer;
    let last = 0;
    // Events come in bursts (a cluster starting): one reading for a burst, at most one a second.
    const soon = () => {
      if (timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        last = Date.now();
        load();
      }, Math.max(250, last + 1000 - Date.now()));
    };
    const stop = watchDomain('kinds=runtime,activation', (kind, event) => {
      // Without the stream (lost, or too many watches), each retry is a reading of its own.
      if (kind === 'open' || kind === 'reset' || kind === 'lost') soon();
      else if (kind === 'runtime' && (event.subject === 'application' || event.subject === 'server')) soon();
      else if (kind === 'activation' && (event.beans || []).some((b) => /^edit\/(appDeployments|libraries)\//.test(b.path || ''))) soon();
    });
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, [load]);
  return { data, error, version, reload: load };
}

/** The application's state on each of its targets, and on each member of a targeted cluster. */
function useStates(app, clusters, version) {
  const [states, setStates] = useState(undefined);
  useEffect(() => {
    let live = true;
    const rows = (app.targets || []).map(refName).map(({ collection, name }) => ({
      target: name,
      members: collection === 'clusters' && (clusters.get(name) || []).length <= MAX_MEMBERS ? clusters.get(name) || [] : [],
    }));
    const ask = (target) =>
      api('POST', `${DM}/appDeploymentRuntimes/${enc(app.name)}/getState`, { target })
        .then((r) => ({ state: r.json.return }))
        .catch((err) => ({ error: err.message }));
    Promise.all(rows.map(async (r) => ({ ...r, ...(await ask(r.target)), members: await Promise.all(r.members.map(async (m) => ({ target: m, ...(await ask(m)) }))) }))).then((found) => {
      if (live) setStates(found);
    });
    return () => {
      live = false;
    };
  }, [app, clusters, version]);
  return states;
}

function StateItem({ row }) {
  const word = row.error ? 'unknown' : stateWord(row.state);
  return html`<span class=${`app-state ${word.toLowerCase().replace(/\s/g, '-')}`} data-target=${row.target} data-state=${row.state ?? ''} title=${row.error || ''}>${row.target}: ${word}</span>`;
}

/**
 * The actions of a deployment's row (the deployment runtime at `runtime`): one operation at a time,
 * followed as its progress object in the row, and an undeploy asked to confirm first. The row goes
 * as soon as the configuration does: the view shows the undeploy to its end (`onUndeploy`).
 * `actions(ops, undeployable)` gives the buttons and the progress.
 */
function useDeploymentActions(runtime, name, onChanged, onUndeploy) {
  const { task, error, busy, run } = useTask(onChanged);
  const [confirming, setConfirming] = useState(false);
  const [undeployError, setUndeployError] = useState(undefined);
  const act = (op) => {
    setConfirming(false);
    setUndeployError(undefined);
    run(`${runtime}/${op}`);
  };
  const undeploy = async () => {
    setConfirming(false);
    setUndeployError(undefined);
    try {
      await runTask(`${runtime}/undeploy`, {}, (t) => onUndeploy(name, t));
    } catch (err) {
      setUndeployError(`undeploy: ${err.message}`);
    } finally {
      onChanged();
    }
  };
  const actions = (ops, undeployable) => html`
      ${ops.map((op) => html`<button type="button" data-op=${op} disabled=${busy} aria-label=${`${op} ${name}`} onClick=${() => act(op)}>${op}</button>`)}
      ${undeployable && !confirming && html`<button type="button" data-op="undeploy" disabled=${busy} aria-label=${`undeploy ${name}`} onClick=${() => setConfirming(true)}>undeploy</button>`}
      ${confirming && html`<span class="confirm">Undeploy ${name}?
        <button type="button" data-op="confirm-undeploy" onClick=${undeploy}>Yes, undeploy</button>
        <button type="button" onClick=${() => setConfirming(false)}>Keep it</button></span>`}
      <${TaskProgress} task=${task} error=${error || undeployError} label=${name} name=${task && `${name} ${opName(task)}`} />`;
  return actions;
}

function AppRow({ app, clusters, version, may, onChanged, onUndeploy }) {
  const states = useStates(app, clusters, version);
  const actions = useDeploymentActions(`${DM}/appDeploymentRuntimes/${enc(app.name)}`, app.name, onChanged, onUndeploy);
  const ops = [...(may.startStop ? ['start', 'stop'] : []), ...(may.deploy ? ['redeploy'] : [])];
  return html`<tr data-app=${app.name}>
    <th scope="row">${app.name}</th>
    <td>${app.moduleType || ''}</td>
    <td class="source">${app.sourcePath || ''}</td>
    <td class="targets">${
      !states
        ? 'Reading…'
        : states.length === 0
          ? 'no target'
          : html`<ul>${states.map((s) => html`<li><${StateItem} row=${s} />${s.members.length > 0 && html`<ul>${s.members.map((m) => html`<li><${StateItem} row=${m} /></li>`)}</ul>`}</li>`)}</ul>`
    }</td>
    ${(may.startStop || may.deploy) && html`<td class="actions">${actions(ops, may.deploy)}</td>`}
  </tr>`;
}

/**
 * A shared library: where it comes from and where it is targeted; a Deployer may redeploy it (its
 * archive read again, followed as its progress object) or undeploy it.
 */
function LibraryRow({ library, may, onChanged, onUndeploy }) {
  const actions = useDeploymentActions(`${DM}/libDeploymentRuntimes/${enc(library.name)}`, library.name, onChanged, onUndeploy);
  return html`<tr data-library=${library.name}>
    <th scope="row">${library.name}</th>
    <td class="source">${library.sourcePath || ''}</td>
    <td>${(library.targets || []).map((t) => refName(t).name).join(', ')}</td>
    ${may.deploy && html`<td class="actions">${actions(['redeploy'], true)}</td>`}
  </tr>`;
}

/** The operation of a progress object (its operationType, as this server numbers them). */
function opName(task) {
  return ['', 'start', 'stop', 'deploy', 'undeploy', 'redeploy', 'distribute', 'update', 'extend'][task.operationType] || 'deployment';
}

/**
 * Sends a multipart deployment to `collection` (appDeployments or libraries) with XMLHttpRequest,
 * whose upload reports progress (fetch's does not). `progress(loaded, total)` hears of the bytes
 * sent; `hold(xhr)` gets the request, to cancel it.
 */
function sendUpload(collection, form, progress, hold) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${BASE}/edit/${collection}`);
    // The server answers as soon as the upload is stored; the deployment is followed as a task.
    for (const [k, v] of Object.entries({ ...callHeaders('POST'), Prefer: 'respond-async' })) xhr.setRequestHeader(k, v);
    xhr.timeout = UPLOAD_TIMEOUT_MS;
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) progress(e.loaded, e.total);
    };
    xhr.onload = () => {
      let json;
      try {
        json = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        json = undefined;
      }
      try {
        answered(xhr.status, json);
        resolve({ status: xhr.status, json, location: xhr.getResponseHeader('location') });
      } catch (err) {
        reject(err);
      }
    };
    xhr.onerror = () => reject(new CallError(0, 'The upload failed: the connection to the server was lost.'));
    xhr.onabort = () => reject(new CallError(0, 'The upload was cancelled.'));
    xhr.ontimeout = () => reject(new CallError(0, `The upload took longer than ${UPLOAD_TIMEOUT_MS / 60_000} minutes and was given up.`));
    hold(xhr);
    xhr.send(form);
  });
}

/** A name for the application from its archive's file name (the server checks it). */
const nameOf = (file) => file.name.replace(/\.[^.]*$/, '');

function UploadForm({ user, servers, clusters, onChanged }) {
  const [file, setFile] = useState(undefined);
  const [plan, setPlan] = useState(undefined);
  const [name, setName] = useState('');
  const [targets, setTargets] = useState([]);
  const [sent, setSent] = useState(undefined);
  const [task, setTask] = useState(undefined);
  const [note, setNote] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [busy, setBusy] = useState(false);
  const [kind, setKind] = useState('application');
  const request = useRef(undefined);
  const choose = (event) => {
    const next = event.target.files[0];
    if (next && (name === '' || (file && name === nameOf(file)))) setName(nameOf(next));
    setFile(next);
  };
  const toggle = (key) => setTargets(targets.includes(key) ? targets.filter((t) => t !== key) : [...targets, key]);
  const submit = async (event) => {
    event.preventDefault();
    const element = event.target;
    if (!file || targets.length === 0) return;
    setError(undefined);
    setNote(undefined);
    setTask(undefined);
    setSent({ loaded: 0, total: file.size + (plan ? plan.size : 0) });
    setBusy(true);
    try {
      const form = new FormData();
      form.append('model', JSON.stringify({ name, targets: targets.map((t) => ({ identity: t.split('/') })) }));
      form.append('sourcePath', file, file.name);
      if (plan) form.append('deploymentPlan', plan, plan.name);
      const r = await sendUpload(kind === 'library' ? 'libraries' : 'appDeployments', form, (loaded, total) => setSent({ loaded, total }), (xhr) => (request.current = xhr));
      setSent((s) => ({ loaded: s.total, total: s.total }));
      let last;
      if (r.status === 202) {
        last = await followTask(r.location || `${DM}/deploymentProgressObjects/${enc(name)}`, r.json, setTask);
      } else {
        // Done already (201), or waiting in the edit session this user holds: then it has no progress object.
        const cm = (await api('GET', 'edit/changeManager?links=none')).json;
        if (cm.locked && cm.lockOwner === user.user) setNote(`${name} is in your edit session: it deploys when you activate your changes.`);
        else setTask((last = (await api('GET', `${DM}/deploymentProgressObjects/${enc(name)}?links=none`)).json));
      }
      // Deployed (or waiting for the activation): the form is ready for the next archive.
      if (!taskFailed(last)) {
        element.reset();
        setFile(undefined);
        setPlan(undefined);
        setName('');
        setTargets([]);
      }
      onChanged();
    } catch (err) {
      setError(err.message);
    } finally {
      request.current = undefined;
      setBusy(false);
    }
  };
  const checkbox = (collection, n) => {
    const key = `${collection}/${n}`;
    return html`<label class="target"><input type="checkbox" name="target" value=${key} checked=${targets.includes(key)} disabled=${busy} onChange=${() => toggle(key)} /> ${n}</label>`;
  };
  const percent = sent && sent.total > 0 ? Math.round((sent.loaded / sent.total) * 100) : 0;
  // Once every byte is sent the server may be deploying already: nothing is left to cancel.
  const cancellable = busy && !task && sent && sent.loaded < sent.total;
  return html`<section aria-labelledby="upload-h" class="upload">
    <h2 id="upload-h">Deploy an archive</h2>
    <form onSubmit=${submit} aria-label="Deploy an archive">
      <fieldset class="kind" disabled=${busy}><legend>Deploy as</legend>
        ${[['application', 'an application'], ['library', 'a shared library']].map(([value, label]) => html`<label><input type="radio" name="kind" value=${value} checked=${kind === value} onChange=${() => setKind(value)} /> ${label}</label>`)}
      </fieldset>
      <label>Archive <input type="file" name="archive" accept=".war,.ear,.jar,.rar" disabled=${busy} onChange=${choose} /></label>
      <label>Deployment plan (optional) <input type="file" name="plan" accept=".xml" disabled=${busy} onChange=${(e) => setPlan(e.target.files[0])} /></label>
      <label>Name <input name="name" value=${name} disabled=${busy} onInput=${(e) => setName(e.target.value)} required /></label>
      <fieldset disabled=${busy}><legend>Targets</legend>
        <div class="target-group"><span>Servers</span>${servers.map((s) => checkbox('servers', s))}</div>
        ${clusters.size > 0 && html`<div class="target-group"><span>Clusters</span>${[...clusters.keys()].map((c) => checkbox('clusters', c))}</div>`}
      </fieldset>
      <div class="buttons">
        <button type="submit" id="deploy" disabled=${busy || !file || targets.length === 0 || name.trim() === ''}>Deploy</button>
        ${cancellable && html`<button type="button" id="cancel-upload" onClick=${() => request.current && request.current.abort()}>Cancel upload</button>`}
      </div>
    </form>
    ${sent && html`<div class="upload-progress">
      <progress id="upload-progress" max=${sent.total} value=${sent.loaded} aria-label="Upload"></progress>
      <span data-percent=${percent}> ${kib(sent.loaded)} of ${kib(sent.total)} sent (${percent}%)</span>
    </div>`}
    <${TaskProgress} task=${task} error=${error} label=${task && task.name} name=${task && `${task.name} ${opName(task)}`} />
    ${note && html`<p class="note">${note}</p>`}
  </section>`;
}

export function Deployments({ user }) {
  const { data, error, version, reload } = useDeployments();
  const [filter, setFilter] = useState('');
  const [shown, setShown] = useState(PAGE);
  const [undeploys, setUndeploys] = useState([]);
  const onUndeploy = useCallback((name, task) => setUndeploys((list) => [...list.filter((u) => u.name !== name), { name, task }].slice(-5)), []);
  const may = roles(user);
  if (!data) return html`${error ? html`<p class="error" role="alert">${error}</p>` : html`<p>Reading the deployments…</p>`}`;
  const matching = data.apps.filter((a) => a.name.toLowerCase().includes(filter.toLowerCase()));
  return html`<section aria-labelledby="apps-h">
      <h2 id="apps-h">Applications</h2>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${data.apps.length > PAGE && html`<label class="filter">Find <input type="search" value=${filter} aria-label="Find an application" onInput=${(e) => { setFilter(e.target.value); setShown(PAGE); }} /></label>`}
      ${undeploys.length > 0 && html`<ul class="undeploys" aria-label="Undeployments">${undeploys.map((u) => html`<li>${u.name}: <${TaskProgress} task=${u.task} label=${u.name} name=${`${u.name} undeploy`} /></li>`)}</ul>`}
      ${matching.length === 0 ? html`<p>No application${filter ? ' by that name' : ' is deployed'}.</p>` : html`<div class="scroll"><table class="apps">
        <thead><tr><th>Application</th><th>Type</th><th>Source</th><th>State per target</th>${(may.startStop || may.deploy) && html`<th>Actions</th>`}</tr></thead>
        <tbody>${matching.slice(0, shown).map((a) => html`<${AppRow} key=${a.name} app=${a} clusters=${data.clusters} version=${version} may=${may} onChanged=${reload} onUndeploy=${onUndeploy} />`)}</tbody>
      </table></div>`}
      ${matching.length > shown && html`<button type="button" onClick=${() => setShown(shown + PAGE)}>Show ${Math.min(PAGE, matching.length - shown)} more of ${matching.length - shown}</button>`}
    </section>
    <section aria-labelledby="libs-h">
      <h2 id="libs-h">Libraries</h2>
      ${data.libraries.length === 0 ? html`<p>No library is deployed.</p>` : html`<div class="scroll"><table class="libraries">
        <thead><tr><th>Library</th><th>Source</th><th>Targets</th>${may.deploy && html`<th>Actions</th>`}</tr></thead>
        <tbody>${data.libraries.map((l) => html`<${LibraryRow} key=${l.name} library=${l} may=${may} onChanged=${reload} onUndeploy=${onUndeploy} />`)}</tbody>
      </table></div>`}
    </section>
    ${may.deploy && html`<${UploadForm} user=${user} servers=${data.servers} clusters=${data.clusters} onChanged=${reload} />`}`;
}
