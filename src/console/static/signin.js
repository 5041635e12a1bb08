// The console's own sign-in form: no browser dialog; the credentials stay with this tab.
import { useState } from './vendor/hooks.mjs';
import { api, html, useCredentials } from './lib.js';

export function SignIn({ message, onSignedIn }) {
  const [error, setError] = useState(message);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const tried = { user: String(form.get('user')), password: String(form.get('password')) };
    useCredentials(tried, false);
    setBusy(true);
    try {
      const me = (await api('GET', 'currentUser?links=none')).json;
      useCredentials(tried, true);
      onSignedIn(me);
    } catch (err) {
      useCredentials(null, false);
      setError(err.status === 401 ? 'The user name or the password is wrong.' : err.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="sign-in">
    <form onSubmit=${submit} aria-label="Sign in">
      <h1>appserver console</h1>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <label>User name <input name="user" autocomplete="username" required autofocus /></label>
      <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
  </main>`;
}
