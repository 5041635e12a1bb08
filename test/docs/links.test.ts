// Every relative link of the README and the docs/ pages leads somewhere: the file exists, and an
// #anchor names a heading of the target page (as GitHub makes them) or an explicit <a id>.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../support/cli.js';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // a link keeps its text
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '').replace(/ /g, '-');
}

/** The lines of a Markdown text outside fenced code blocks. */
function prose(text: string): string[] {
  const out: string[] = [];
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      continue;
    }
    if (!fence) out.push(line);
  }
  return out;
}

/** Every anchor a page offers: its headings (repeats numbered -1, -2, ...) and explicit ids. */
function anchorsOf(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(text)) {
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const s = slug(h[2]!);
      const n = seen.get(s) ?? 0;
      seen.set(s, n + 1);
      found.add(n === 0 ? s : `${s}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(m[1]!);
  }
  return found;
}

/** The link targets of a page's prose (inline links and images), without inline code spans. */
function linksOf(text: string): string[] {
  const out: string[] = [];
  for (const line of prose(text)) {
    const bare = line.replace(/`[^`]*`/g, '');
    for (const m of bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]!);
  }
  return out;
}

const pages = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f)),
];

test('anchors are made as GitHub makes them', () => {
  assert.equal(slug('The typed client (`appserver-admin/client`)'), 'the-typed-client-appserver-adminclient');
  assert.equal(slug('Control interface (for tests)'), 'control-interface-for-tests');
  assert.equal(slug('Metrics, runtime figures and watch'), 'metrics-runtime-figures-and-watch');
  assert.deepEqual([...anchorsOf('# A\n```sh\n# not a heading\n```\n## A\n<a id="x"></a>')], ['a', 'a-1', 'x']);
  assert.deepEqual(linksOf('[a](b.md#c) `[d](e.md)` ![f](g.png "t")\n```\n[h](i.md)\n```'), ['b.md#c', 'g.png']);
});

test('the README and every docs page link only to files and anchors that exist', () => {
  const problems: string[] = [];
  let checked = 0;
  for (const page of pages) {
    const text = readFileSync(page, 'utf8');
    for (const link of linksOf(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: ...
      checked++;
      const [path, anchor] = link.split('#', 2) as [string, string | undefined];
      const target = path === '' ? page : join(dirname(page), decodeURIComponent(path));
      const where = `${relative(ROOT, page)}: ${link}`;
      if (!existsSync(target)) {
        problems.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!target.endsWith('.md') || statSync(target).isDirectory()) {
        problems.push(`${where}: an anchor into a file that is not a Markdown page`);
        continue;
      }
      if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) problems.push(`${where}: no heading or id makes #${anchor}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked > 40, `only ${checked} relative links were found`);
});

test('the README is a front page: under 300 lines, with a map of every docs page', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n').length;
  assert.ok(lines < 300, `README.md has ${lines} lines`);
  assert.match(readme, /```sh\nnpm ci && npm start\n```/);
  assert.match(readme, /```sh\nnpm ci && npm test\n```/);
  const linked = new Set(linksOf(readme).map((l) => l.split('#')[0]));
  for (const page of pages.slice(1)) {
    const path = relative(ROOT, page);
    assert.ok(linked.has(path), `the README does not link ${path}`);
  }
});
