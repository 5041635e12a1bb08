// The change center: the edit session, its pending changes as a diff, activate or undo, a
// property editor generated from the bean's description (?describe), and the activations so far.
import { useCallback, useEffect, useState } from './vendor/hooks.mjs';
import { ActivationHistory, Changes } from './history.js';
import { api, html } from './lib.js';

const PLAIN = ['string', 'boolean', 'int', 'long', 'double'];

export function ChangeCenter({ user }) {
  const [cm, setCm] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [path, setPath] = useState('servers/ms1');
  const [bean, setBean] = useState(undefined);
  const [edits, setEdits] = useState({});
  const [activated, setActivated] = useState(0);
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
      if (action === 'activate') setActivated((n) => n + 1);
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
    <h2 id="cc-h">Edit session</h2>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <p class="lock">${cm.locked ? `Edit session held by ${cm.lockOwner}${cm.hasChanges ? ', with changes not yet activated' : ''}.` : 'No edit session is open.'}</p>
    ${mayEdit && html`<div class="buttons">
      ${!cm.locked && html`<button type="button" id="start-edit" onClick=${act('startEdit')}>Start edit</button>`}
      ${mine && html`<button type="button" id="activate" onClick=${act('activate')}>Activate changes</button>
      <button type="button" id="cancel-edit" onClick=${act('cancelEdit')}>Undo all changes</button>`}
    </div>`}
    ${mine && (cm.pendingChanges || []).length > 0 && html`<${Changes} changes=${cm.pendingChanges} label="Pending changes" />`}
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
  </section>
  <${ActivationHistory} version=${activated} />`;
}

export function editorFor(p, value, set) {
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
