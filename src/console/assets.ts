// The console's files: its page, script and style sheet (src/console/static) and the UI library it
// is written with (Preact and htm, from node_modules), read once and served as they are. They hold
// no data, so they are served without credentials; everything the console shows it reads through
// the REST interface with the credentials its own sign-in form takes.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the console lives. */
export const CONSOLE_PATH = '/console';

export interface ConsoleAsset {
  type: string;
  body: Buffer;
}

const JS = 'text/javascript; charset=utf-8';
const TYPES: Record<string, string> = { '.js': JS, '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

function ownDir(): string {
  for (const candidate of ['./static/', '../../../src/console/static/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  throw new Error("The console's files (src/console/static) are missing.");
}

/** The folder of a module's main file (its dist/), found as Node finds the module. */
function distDir(name: string): string {
  return dirname(createRequire(import.meta.url).resolve(name));
}

function load(): Map<string, ConsoleAsset> {
  const own = ownDir();
  const file = (path: string) => readFileSync(path);
  const served = new Map<string, ConsoleAsset>([['/', { type: 'text/html; charset=utf-8', body: file(join(own, 'index.html')) }]]);
  // Every module and style sheet of the folder: each view of the console is a module of its own.
  for (const name of readdirSync(own)) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (type) served.set(`/${name}`, { type, body: file(join(own, name)) });
  }
  served.set('/vendor/preact.mjs', { type: JS, body: file(join(distDir('preact'), 'preact.mjs')) });
  // The hooks import Preact by its package name; a browser without an import map needs a path.
  served.set('/vendor/hooks.mjs', { type: JS, body: Buffer.from(readFileSync(join(distDir('preact/hooks'), 'hooks.mjs'), 'utf8').replace(/from\s*["']preact["']/g, 'from"./preact.mjs"')) });
  served.set('/vendor/htm.mjs', { type: JS, body: file(join(distDir('htm'), 'htm.mjs')) });
  return served;
}

let assets: Map<string, ConsoleAsset> | undefined;

/** The asset at a path below /console (`/`, `/app.js`...), or undefined. */
export function consoleAsset(path: string): ConsoleAsset | undefined {
  assets ??= load();
  return assets.get(path);
}

/** True for a URL of the console's own files. */
export function isConsoleUrl(url: string): boolean {
  const path = url.split('?')[0]!;
  return path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);
}
