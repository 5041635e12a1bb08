// The history of activations (edit/changeManager/activations lists them newest first): who activated, when,
// from which edit session, whether a restart is needed, and each change with its old and new values.
import { useEffect, useState } from './vendor/hooks.mjs';
import { api, html, show, shortTime } from './lib.js';

/** How many activations show at first; more come a page at a time. */
const PAGE = 20;

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "3 changes to 2 beans": a created or deleted bean counts as one change, a modification one per property. */
export function summary(changes) {
  const count = changes.reduce((n, c) => n + (c.operation === 'modify' ? Math.max(1, (c.properties || []).length) : 1), 0);
  return `${plural(count, 'change')} to ${plural(changes.length, 'bean')}`;
}

/** Changes as activation records and pending changes list them: one row per property changed. */
export function Changes({ changes, label }) {
  return html`<div class="scroll"><table class="diff" aria-label=${label}>
    <thead><tr><th>Bean</th><th>Change</th><th>Property</th><th>Old</th><th>New</th></tr></thead>
    <tbody>${changes.flatMap((c) => (c.properties && c.properties.length ? c.properties : [{}]).map((p) => html`<tr>
      <td>${(c.identity || []).join('/')}</td><td>${c.operation}</td><td>${p.name || ''}${p.restartRequired ? ' (restart needed)' : ''}</td>
      <td>${show(p.oldValue)}</td><td>${show(p.newValue)}</td></tr>`))}</tbody>
  </table></div>`;
}

/** `version` changes when the change center knows the configuration changed (read again then). */
export function ActivationHistory({ version }) {
  const [items, setItems] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [shown, setShown] = useState(PAGE);
  useEffect(() => {
    api('GET', 'edit/changeManager/activations?links=none')
      .then((r) => {
        setItems(r.json.items || []);
        setError(undefined);
      })
      .catch((err) => setError(err.message));
  }, [version]);
  return html`<section aria-labelledby="history-h" class="history">
    <h2 id="history-h">Activation history</h2>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${!items ? !error && html`<p>Reading the activations…</p>` : items.length === 0 ? html`<p>Nothing has been activated yet.</p>` : html`
      <ol class="activation-history" reversed start=${items.length}>${items.slice(0, shown).map((a) => html`<li data-activation=${a.name}>
        <details>
          <summary><strong>${a.user || '?'}</strong> ${shortTime(a.endTime || a.startTime)} — ${summary(a.changes || [])}
            ${a.editSession && a.editSession !== 'default' ? ` in session ${a.editSession}` : ''}${a.restartRequired ? ' — restart needed' : ''}
            <span class="muted"> (version ${a.version})</span></summary>
          ${(a.changes || []).length > 0 ? html`<${Changes} changes=${a.changes} label=${`Changes of activation ${a.name}`} />` : html`<p>No change recorded.</p>`}
        </details>
      </li>`)}</ol>
      ${items.length > shown && html`<button type="button" onClick=${() => setShown(shown + PAGE)}>Show ${Math.min(PAGE, items.length - shown)} more of ${items.length - shown}</button>`}`}
  </section>`;
}
