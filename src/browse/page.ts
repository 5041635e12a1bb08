// The HTML view of a management URL: the JSON body the URL answers, laid out for a person. The page
// is rendered here from that body alone; the script it loads (static/browse.js) adds what needs the
// bean's description or further calls: reference links, edit and create forms, action buttons, the
// change center and task progress.

/** The query parameter (`format=json`) that asks a browser's request for the JSON form of a URL. */
export const JSON_FORM_PARAMETER = 'format';

/** True when a URL's query asks for the JSON form (`format=json`), whatever the Accept header says. */
export function asksForJson(url: string): boolean {
  const q = url.indexOf('?');
  return q >= 0 && new URLSearchParams(url.slice(q + 1)).get(JSON_FORM_PARAMETER) === 'json';
}

/** Where the page's script and style sheet are served. */
export const BROWSE_ASSETS = '/management/appserver-browse';

interface Link {
  rel: string;
  href: string;
  title?: string;
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => escapes[c]!);

/** JSON inside a <script> element: nothing in it may close the element or open a comment. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function linksOf(body: Record<string, unknown>): Link[] {
  const links = body.links;
  if (!Array.isArray(links)) return [];
  return links.filter((l): l is Link => isRecord(l) && typeof l.rel === 'string' && typeof l.href === 'string');
}

/** A value as text: scalars as they are, arrays and objects as compact JSON. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A property's cell; a reference shows as links to what it names (the body links them by property name). */
function valueCell(name: string, value: unknown, references: Link[] = []): string {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const attrs = `class="value ${kind}" data-property="${escapeHtml(name)}"`;
  if (Array.isArray(value) && value.length > 0 && references.length > 0) {
    const identities = (Array.isArray(value[0]) ? value : [value]) as unknown[][];
    const anchors = identities.map((identity, i) => {
      const label = escapeHtml(identity.map(String).join('/'));
      const href = references[i]?.href ?? references.find((l) => l.href.endsWith(`/${identity.map((s) => encodeURIComponent(String(s))).join('/')}`))?.href;
      return href ? `<a class="reference" href="${escapeHtml(href)}">${label}</a>` : label;
    });
    return `<td ${attrs}>${anchors.join(', ')}</td>`;
  }
  return `<td ${attrs}>${escapeHtml(valueText(value))}</td>`;
}

function propertiesTable(body: Record<string, unknown>): string {
  const byRel = new Map<string, Link[]>();
  for (const l of linksOf(body)) byRel.set(l.rel, [...(byRel.get(l.rel) ?? []), l]);
  const rows = Object.entries(body)
    .filter(([k]) => k !== 'links' && k !== 'items')
    .map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th>${valueCell(k, v, k === 'identity' ? [] : byRel.get(k))}</tr>`);
  if (rows.length === 0) return '';
  return `<table class="properties"><thead><tr><th>Property</th><th>Value</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** A collection: one row per item, its name linked to the item, and the scalar columns it has. */
function itemsTable(items: unknown[]): string {
  const records = items.filter(isRecord);
  const columns: string[] = [];
  for (const item of records) {
    for (const [k, v] of Object.entries(item)) {
      if (k === 'links' || k === 'name' || columns.includes(k) || columns.length >= 6) continue;
      if (v === null || typeof v !== 'object') columns.push(k);
    }
  }
  const head = ['name', ...columns].map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const rows = records.map((item, index) => {
    const self = linksOf(item).find((l) => l.rel === 'self' || l.rel === 'canonical');
    const label = escapeHtml(typeof item.name === 'string' ? item.name : Array.isArray(item.identity) ? item.identity.join('/') : `#${index + 1}`);
    const name = self ? `<a href="${escapeHtml(self.href)}">${label}</a>` : label;
    return `<tr><td>${name}</td>${columns.map((c) => valueCell(c, item[c])).join('')}</tr>`;
  });
  return `<table class="items"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table><p class="count">${records.length} item${records.length === 1 ? '' : 's'}</p>`;
}

function linksList(links: Link[]): string {
  const shown = links.filter((l) => l.rel !== 'self' && l.rel !== 'canonical' && l.rel !== 'action');
  if (shown.length === 0) return '';
  const item = (l: Link) => `<li><a rel="${escapeHtml(l.rel)}" href="${escapeHtml(l.href)}">${escapeHtml(l.title ?? l.rel)}</a></li>`;
  return `<section class="links"><h2>Links</h2><ul>${shown.map(item).join('')}</ul></section>`;
}

/** The path as links, one per segment, from the management root down. */
function breadcrumbs(path: string): string {
  const segments = path.split('/').filter(Boolean);
  const at = segments.indexOf('management');
  const start = at < 0 ? 0 : at + 1;
  const crumbs = segments.map((s, i) => ({ label: decodeURIComponentSafe(s), href: `/${segments.slice(0, i + 1).join('/')}` })).slice(start);
  return crumbs.map((c, i) => (i === crumbs.length - 1 ? `<span>${escapeHtml(c.label)}</span>` : `<a href="${escapeHtml(c.href)}">${escapeHtml(c.label)}</a>`)).join(' / ');
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export interface PageInput {
  /** The request's path (without the query). */
  path: string;
  status: number;
  /** The JSON body the URL answered (already parsed). */
  body: unknown;
}

/** The whole HTML document for one answer. */
export function renderPage({ path, status, body }: PageInput): string {
  const record = isRecord(body) ? body : {};
  const links = linksOf(record);
  const self = links.find((l) => l.rel === 'self')?.href ?? path;
  const failed = status >= 400;
  const title = failed ? `${status} ${path}` : path.split('/').filter(Boolean).map(decodeURIComponentSafe).slice(-2).join(' / ') || path;
  const heading = failed
    ? `<h1>Error ${status}</h1><p class="error">${escapeHtml(String(record.detail ?? ''))}</p>${errorDetails(record)}`
    : `<h1>${escapeHtml(typeof record.name === 'string' ? record.name : decodeURIComponentSafe(path.split('/').filter(Boolean).pop() ?? path))}${typeof record.type === 'string' ? ` <small class="type">${escapeHtml(record.type)}</small>` : ''}</h1>`;
  const content = failed ? '' : `${Array.isArray(record.items) ? itemsTable(record.items) : ''}${propertiesTable(record)}${linksList(links)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${BROWSE_ASSETS}/browse.css">
</head>
<body data-status="${status}" data-self="${escapeHtml(self)}">
<header><nav class="crumbs" aria-label="Path">${breadcrumbs(path)}</nav></header>
<main>
${heading}
<section id="change-center" hidden></section>
<section id="actions" hidden></section>
${content}
<section id="create" hidden></section>
<details class="json"><summary>JSON</summary><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre></details>
</main>
<script type="application/json" id="bean">${scriptJson(body)}</script>
<script type="module" src="${BROWSE_ASSETS}/browse.js"></script>
</body>
</html>
`;
}

function errorDetails(record: Record<string, unknown>): string {
  const details = record['appserver:errorsDetails'];
  if (!Array.isArray(details) || details.length === 0) return '';
  const items = details.filter(isRecord).map((d) => `<li>${escapeHtml(String(d.detail ?? ''))}</li>`);
  return `<ul class="error-details">${items.join('')}</ul>`;
}

/**
 * The page shown instead of an answer too large to lay out as HTML: it says so and links to the same
 * URL's JSON form, which is streamed however large it is. `judged`: the answer was not printed to
 * the size, its first items showed the size would be passed (a collection of that many items).
 */
export function tooLargePage(path: string, jsonHref: string, limitChars: number, judged?: { items: number }): string {
  const kib = Math.round(limitChars / 1024);
  const size = judged
    ? `would be larger than ${kib} KiB, the most the HTML view lays out: it lists ${judged.items} items, and its first ones show their size`
    : `is larger than ${kib} KiB, the most the HTML view lays out`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`Too large to show: ${path}`)}</title>
<link rel="stylesheet" href="${BROWSE_ASSETS}/browse.css">
</head>
<body data-status="406" data-self="${escapeHtml(path)}">
<header><nav class="crumbs" aria-label="Path">${breadcrumbs(path)}</nav></header>
<main>
<h1>Too large to show as a page</h1>
<p class="error">This answer ${size}. Narrow it (for example with <code>fields</code>, <code>links=none</code> or a search), or read it as JSON: <a class="json-form" href="${escapeHtml(jsonHref)}">${escapeHtml(jsonHref)}</a>.</p>
</main>
</body>
</html>
`;
}

/** The page refusing the answer of `url` (path and query) as HTML, its link keeping the query and adding `format=json`. */
export function tooLargeForHtml(url: string, limitChars: number, judged?: { items: number }): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  query.set(JSON_FORM_PARAMETER, 'json');
  return tooLargePage(path, `${path}?${query.toString()}`, limitChars, judged);
}
