// What every view of the console shares: the calls of the REST interface with this tab's
// credentials, task following, and small formatting helpers.
import { h } from './vendor/preact.mjs';
import htm from './vendor/htm.mjs';
import { useState } from './vendor/hooks.mjs';

export const html = htm.bind(h);
export const BASE = '/management/appserver/latest';
export const LIFECYCLE = '/management/lifecycle/latest';
const STORAGE = 'appserver-console';

let credentials = JSON.parse(sessionStorage.getItem(STORAGE) || 'null');
let onSignedOut = () => {};

/** Who is told when the credentials go (the frame, which shows the sign-in form again). */
export function whenSignedOut(handler) {
  onSignedOut = handler;
}

export const hasCredentials = () => Boolean(credentials);

/** Keeps credentials for this tab (after the server accepted them) or tries them (keep = false). */
export function useCredentials(next, keep) {
  credentials = next;
  if (keep && next) sessionStorage.setItem(STORAGE, JSON.stringify(next));
}

export class CallError extends Error {
  constructor(status, text) {
    super(text);
    this.status = status;
  }
}

/** The text of a JSON error of the server: its detail and the detail of each of its errors. */
export function problemText(status, body) {
  const details = body && Array.isArray(body['appserver:errorsDetails']) ? body['appserver:errorsDetails'].map((d) => d.detail) : [];
  return [body && body.detail, ...details].filter(Boolean).join(' ') || `HTTP ${status}`;
}

/** The headers every call carries: this tab's credentials, and the request not to be challenged. */
export function callHeaders(_method = 'GET') {
  return {
    Accept: 'application/json',
    // Asks the server not to challenge: a failed sign-in shows in the form, not in a browser dialog.
    'X-Requested-With': 'XMLHttpRequest',
    ...(credentials ? { Authorization: `Basic ${btoa(`${credentials.user}:${credentials.password}`)}` } : {}),
    // On reads too, as the product's console does: reading domainRuntime/serverRuntimes while a
    // managed server runs needs it.
    'X-Requested-By': 'appserver-console',
  };
}

/** What an answer of the server means for the console: a 401 signs it out; any failure is a CallError. */
export function answered(status, json) {
  if (status === 401 && credentials) {
    signOut('Your credentials are no longer accepted; sign in again.');
  }
  if (status < 200 || status > 299) throw new CallError(status, problemText(status, json));
}

/** One call of the REST interface; a 401 signs the console out. */
export async function api(method, path, body, extra = {}) {
  const headers = { ...callHeaders(method), ...(method === 'GET' ? {} : { 'Content-Type': 'application/json' }), ...extra };
  const url = /^(https?:)?\//.test(path) ? path : `${BASE}/${path}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' });
  const text = await response.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  answered(response.status, json);
  return { status: response.status, json, location: response.headers.get('location') };
}

export function signOut(message) {
  credentials = null;
  sessionStorage.removeItem(STORAGE);
  onSignedOut(message);
}

/** Polls a task until it ends (bounded: ten minutes), reporting it as it goes. */
export async function followTask(url, first, report) {
  let task = first;
  const deadline = Date.now() + 600_000;
  while (task && !task.completed && task.running !== false && Date.now() < deadline) {
    report(task);
    await new Promise((resolve) => setTimeout(resolve, Math.min(Number(task.intervalToPoll) || 500, 1000)));
    task = (await api('GET', `${url}?links=none`)).json;
  }
  report(task);
  return task;
}

export const taskFailed = (t) => Boolean(t && (t.taskError || t.progress === 'failed' || /FAILED/.test(t.taskStatus || t.state || '')));

export const show = (v) => (v === undefined ? '' : v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v));
export const mb = (bytes) => (typeof bytes === 'number' ? `${Math.round(bytes / 1048576)} MB` : '');

/** Whether the signed-in user has one of the roles. */
export const hasRole = (user, ...roles) => (user?.roles || []).some((r) => roles.includes(r));

/** A time of the server's (ISO 8601) as this browser's local date and time, to the second. */
export const shortTime = (iso) => {
  const d = iso ? new Date(iso) : undefined;
  return d && !Number.isNaN(d.getTime()) ? d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' }) : '';
};

/** Deleting takes a second click: the first one asks. */
export function TwoStep({ label, what, onConfirm }) {
  const [asking, setAsking] = useState(false);
  return asking
    ? html`<button type="button" class="danger" onClick=${() => { setAsking(false); onConfirm(); }}>${label} ${what} now</button>
      <button type="button" onClick=${() => setAsking(false)}>Keep it</button>`
    : html`<button type="button" aria-label=${`${label.toLowerCase()} ${what}`} onClick=${() => setAsking(true)}>${label}</button>`;
}
