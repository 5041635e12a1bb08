// The console: one page over the public REST interface. Written with Preact and htm (no build step:
// the browser loads these modules as they are). Credentials are asked by the console's own form,
// kept for this tab only (sessionStorage), and sent as basic credentials on every call.
// Each view lives in its own module; VIEWS below is the list the navigation shows.
import { render } from './vendor/preact.mjs';
import { useEffect, useState } from './vendor/hooks.mjs';
import { ChangeCenter } from './changes.js';
import { Dashboard } from './dashboard.js';
import { Browse } from './tree.js';
import { api, hasCredentials, html, signOut, whenSignedOut } from './lib.js';
import { SignIn } from './signin.js';

const VIEWS = [
  { id: 'dashboard', label: 'Dashboard', view: Dashboard },
  { id: 'changes', label: 'Change center', view: ChangeCenter },
  { id: 'browse', label: 'Browse', view: Browse },
];

function App() {
  const [user, setUser] = useState(undefined);
  const [message, setMessage] = useState(undefined);
  const [view, setView] = useState(location.hash.slice(1) || 'dashboard');
  const [theme, setTheme] = useState(localStorage.getItem('appserver-console-theme') || 'auto');
  useEffect(() => {
    whenSignedOut((text) => {
      setUser(undefined);
      setMessage(text);
    });
    if (hasCredentials()) {
      api('GET', 'currentUser?links=none')
        .then((r) => setUser(r.json))
        .catch(() => signOut(undefined));
    }
    const onHash = () => setView(location.hash.slice(1) || 'dashboard');
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('appserver-console-theme', theme);
  }, [theme]);
  if (!user) return html`<${SignIn} message=${message} onSignedIn=${(me) => { setMessage(undefined); setUser(me); }} />`;
  // A view's hash may name more after a slash (#browse/domainConfig/servers/ms1: the bean it shows).
  const current = VIEWS.find((v) => v.id === view.split('/')[0]) || VIEWS[0];
  const View = current.view;
  return html`<header>
      <strong class="brand">appserver console</strong>
      <nav aria-label="Views">${VIEWS.map((v) => html`<a href=${`#${v.id}`} aria-current=${v.id === current.id ? 'page' : undefined}>${v.label}</a>`)}</nav>
      <span class="who" data-user=${user.user}>${user.user} (${(user.roles || []).join(', ') || 'no role'})</span>
      <button type="button" class="theme" onClick=${() => setTheme(theme === 'dark' ? 'light' : 'dark')} aria-label="Switch between light and dark">${theme === 'dark' ? 'Light' : 'Dark'}</button>
      <button type="button" id="sign-out" onClick=${() => signOut(undefined)}>Sign out</button>
    </header>
    <main id="view" data-view=${current.id}><${View} user=${user} /></main>`;
}

// The page's "Loading" line goes first: render adds to what the element holds, it does not replace it.
const mount = document.getElementById('app');
mount.textContent = '';
render(html`<${App} />`, mount);
