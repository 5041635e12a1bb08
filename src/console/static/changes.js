// The change center: the edit session, its pending changes as a diff, activate or undo, and a
// bean of the edit tree opened in the console's shared property editor (editor.js).
import { useCallback, useEffect, useState } from './vendor/hooks.mjs';
import { restUrl } from './beanpath.js';
import { BeanEditor } from './editor.js';
import { api, html, show } from './lib.js';

export function ChangeCenter({ user }) {
  const [cm, setCm] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [path, setPath] = useState('servers/ms1');
  const [opened, setOpened] = useState(undefined);
  const [round, setRound] = useState(0);
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
      await load();
      setRound((r) => r + 1);
    } catch (err) {
      setError(`${action}: ${err.message}`);
    }
  };
  const open = (event) => {
    event.preventDefault();
    setError(undefined);
    setOpened(restUrl(['edit', ...path.split('/').filter(Boolean)]));
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
    ${mine && opened && html`<${BeanEditor} url=${opened} editable=${true} refresh=${round} onSaved=${load} />`}
  </section>`;
}
