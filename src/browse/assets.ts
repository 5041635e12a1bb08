// The browsable view's script and style sheet, read once. They live beside the sources (tsc copies
// no static files), so from the compiled module they are found through the repository's src/.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  'browse.js': 'text/javascript; charset=utf-8',
  'browse.css': 'text/css; charset=utf-8',
};

function staticDir(): string {
  for (const candidate of ['./static/', '../../../src/browse/static/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}browse.js`)) return dir;
  }
  throw new Error('The browsable view\'s assets (src/browse/static) are missing.');
}

let loaded: Map<string, { type: string; body: Buffer }> | undefined;

/** An asset by file name, or undefined when there is no such asset. */
export function browseAsset(name: string): { type: string; body: Buffer } | undefined {
  if (!loaded) {
    const dir = staticDir();
    loaded = new Map(Object.entries(TYPES).map(([file, type]) => [file, { type, body: readFileSync(`${dir}${file}`) }]));
  }
  return loaded.get(name);
}
