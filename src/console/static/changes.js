// The change center: the edit session, its pending changes as a diff, activate or undo, a bean of
// the edit tree opened in the console's shared property editor (editor.js), and the activations so far.
import { useCallback, useEffect, useState } from './vendor/hooks.mjs';
import { restUrl } from './beanpath.js';
import { BeanEditor } from './editor.js';
import { ActivationHistory, Changes } from './history.js';
import { api, html } from './lib.js';

export function ChangeCenter({ user }) {
  const [cm, setCm] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [path, setPath] = useState('servers/ms1');
  const [opened, setOpened] = useState(undefined);
  const [round, setRound] = useState(0);
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
    ${mine && opened && html`<${BeanEditor} url=${opened} editable=${true} refresh=${round} onSaved=${load} />`}
  </section>
  <${ActivationHistory} version=${activated} />`;
}
