// The console: one page over the public REST interface. Written with Preact and htm (no build step:
// the browser loads these modules as they are). Credentials are asked by the console's own form,
// kept for this tab only (sessionStorage), and sent as basic credentials on every call.
// Each view lives in its own module; VIEWS below is the list the navigation shows.
import { render } from './vendor/preact.mjs';
import { useEffect, useRef, useState } from './vendor/hooks.mjs';
import { ChangeCenter } from './changes.js';
import { Dashboard } from './dashboard.js';
import { Deployments } from './deployments.js';
import { Keys, shortcutsOf, useShortcuts } from './keys.js';
import { LifecycleManager } from './lcm.js';
import { api, hasCredentials, html, signOut, whenSignedOut } from './lib.js';
import { Lifecycle } from './lifecycle.js';
import { SignIn } from './signin.js';
import { Browse } from './tree.js';

// `key` is the letter of the view's shortcut (g then the letter); without one, the first free
// letter of its name is taken.
const VIEWS = [
  { id: 'dashboard', label: 'Dashboard', view: Dashboard, key: 'd' },
  { id: 'changes', label: 'Change center', view: ChangeCenter, key: 'c' },
  { id: 'lifecycle', label: 'Lifecycle', view: Lifecycle, key: 'l' },
  { id: 'lcm', label: 'Lifecycle Manager', view: LifecycleManager, key: 'm' },
  { id: 'browse', label: 'Browse', view: Browse, key: 'b' },
  { id: 'deployments', label: 'Deployments', view: Deployments, key: 'p' },
];

/** The view the hash names: what comes before a slash (#browse/domainConfig/servers/ms1 names a bean of Browse). */
const viewOfHash = () => location.hash.slice(1).split('/')[0] || 'dashboard';

function App() {
  const [user, setUser] = useState(undefined);
  const [message, setMessage] = useState(undefined);
  const [view, setView] = useState(viewOfHash());
  const [theme, setTheme] = useState(localStorage.getItem('appserver-console-theme') || 'auto');
  const [help, setHelp] = useState(false);
  const heading = useRef(null);
  const shortcuts = shortcutsOf(VIEWS);
  useShortcuts(Boolean(user), shortcuts, () => setHelp(true));
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
    const onHash = () => setView(viewOfHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('appserver-console-theme', theme);
  }, [theme]);
  // A new view takes the focus to its heading, so the keyboard and screen readers start there.
  useEffect(() => {
    if (user) heading.current?.focus();
  }, [user, view]);
  if (!user) return html`<${SignIn} message=${message} onSignedIn=${(me) => { setMessage(undefined); setUser(me); }} />`;
  const current = VIEWS.find((v) => v.id === view) || VIEWS[0];
  const View = current.view;
  return html`<a class="skip" href="#view-heading" onClick=${(e) => { e.preventDefault(); heading.current?.focus(); }}>Skip to the main content</a>
    <header>
      <strong class="brand">appserver console</strong>
      <nav aria-label="Views">${VIEWS.map((v) => html`<a href=${`#${v.id}`} aria-current=${v.id === current.id ? 'page' : undefined}
        aria-keyshortcuts=${`g ${shortcuts.get(v.id)}`}>${v.label}</a>`)}</nav>
      <span class="who" data-user=${user.user}>${user.user} (${(user.roles || []).join(', ') || 'no role'})</span>
      <button type="button" class="theme" onClick=${() => setTheme(theme === 'dark' ? 'light' : 'dark')} aria-label="Switch between light and dark">${theme === 'dark' ? 'Light' : 'Dark'}</button>
      <button type="button" class="keys-help" onClick=${() => setHelp(true)} aria-keyshortcuts="?">Keys</button>
      <button type="button" id="sign-out" onClick=${() => signOut(undefined)}>Sign out</button>
    </header>
    <main id="view" data-view=${current.id}>
      <h1 id="view-heading" tabindex="-1" ref=${heading}>${current.label}</h1>
      <${View} user=${user} />
    </main>
    ${help && html`<${Keys} views=${VIEWS} shortcuts=${shortcuts} onClose=${() => setHelp(false)} />`}`;
}

// The page's "Loading…" placeholder goes: the console takes the whole container.
const root = document.getElementById('app');
root.replaceChildren();
render(html`<${App} />`, root);
