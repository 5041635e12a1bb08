#!/usr/bin/env node
// Launcher. The TypeScript sources are compiled to dist/src/ by `npm ci` (prepare) or `npm run
// build`, which also joins them into a few files in dist/bundle/ (scripts/bundle.mjs) that start
// faster. The bundle runs only when dist/bundle/build.json's fingerprint matches the files now in
// dist/src/; otherwise (no bundle, or dist/src/ compiled again since) dist/src/ runs, so the
// command never runs code older than dist/.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fingerprint } from './fingerprint.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function bundleIsCurrent() {
  try {
    const record = JSON.parse(readFileSync(new URL('../dist/bundle/build.json', import.meta.url), 'utf8'));
    return fingerprint(ROOT, record.inputs) === record.fingerprint;
  } catch {
    return false; // no bundle, or one of its files is gone from dist/src/
  }
}

await import(bundleIsCurrent() ? '../dist/bundle/main.js' : '../dist/src/cli/main.js');
