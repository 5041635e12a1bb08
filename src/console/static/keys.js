// Keyboard shortcuts: `g` then a view's letter opens that view, `?` lists the shortcuts. Keys typed
// into a field, or with Ctrl, Alt or Meta held, are the field's and the browser's, never ours.
import { useEffect, useRef } from './vendor/hooks.mjs';
import { html } from './lib.js';

/** How long after `g` its letter may follow (ms). */
const CHORD_MS = 1500;

/** The letter of each view: its own `key`, else the first letter of its name not taken yet. */
export function shortcutsOf(views) {
  const taken = new Set(views.map((v) => v.key).filter(Boolean));
  taken.add('g');
  const letters = new Map();
  for (const v of views) {
    let key = v.key;
    if (!key) {
      key = [...`${v.label}${v.id}`.toLowerCase()].find((c) => /[a-z]/.test(c) && !taken.has(c));
      if (key) taken.add(key);
    }
    if (key) letters.set(v.id, key);
  }
  return letters;
}

const typing = (el) => Boolean(el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)));

export function useShortcuts(enabled, shortcuts, onHelp) {
  const state = useRef({ pending: 0, shortcuts, onHelp });
  state.current.shortcuts = shortcuts;
  state.current.onHelp = onHelp;
  useEffect(() => {
    if (!enabled) return undefined;
    const onKey = (e) => {
      if (e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey || typing(e.target) || document.querySelector('dialog[open]')) return;
      const s = state.current;
      if (e.key === '?') {
        e.preventDefault();
        s.onHelp();
        return;
      }
      if (s.pending && Date.now() - s.pending < CHORD_MS) {
        s.pending = 0;
        const view = [...s.shortcuts].find(([, letter]) => letter === e.key.toLowerCase());
        if (view) {
          e.preventDefault();
          location.hash = `#${view[0]}`;
        }
        return;
      }
      s.pending = e.key === 'g' ? Date.now() : 0;
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [enabled]);
}

/** The list of shortcuts, in a modal dialog (Escape or its button closes it). */
export function Keys({ views, shortcuts, onClose }) {
  const dialog = useRef(null);
  useEffect(() => {
    const d = dialog.current;
    d?.showModal?.();
    const closed = () => onClose();
    d?.addEventListener('close', closed);
    return () => d?.removeEventListener('close', closed);
  }, []);
  return html`<dialog ref=${dialog} class="keys" aria-labelledby="keys-h">
    <h2 id="keys-h">Keyboard</h2>
    <table><tbody>
      <tr><th scope="row"><kbd>Tab</kbd>, <kbd>Shift</kbd>+<kbd>Tab</kbd></th><td>Move between links, buttons and fields; <kbd>Enter</kbd> or <kbd>Space</kbd> acts.</td></tr>
      <tr><th scope="row">Skip link</th><td>The first <kbd>Tab</kbd> of a page offers to jump to the view's heading.</td></tr>
      ${views.filter((v) => shortcuts.has(v.id)).map((v) => html`<tr><th scope="row"><kbd>g</kbd> <kbd>${shortcuts.get(v.id)}</kbd></th><td>${v.label}</td></tr>`)}
      <tr><th scope="row"><kbd>?</kbd></th><td>This list</td></tr>
      <tr><th scope="row"><kbd>Esc</kbd></th><td>Close it</td></tr>
    </tbody></table>
    <form method="dialog"><button type="submit" autofocus>Close</button></form>
  </dialog>`;
}
