// The crawl: from the version root, follow every link of every body (and of every collection item)
// except the POST targets, and check that every resource answers 200 with a well-formed body.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, startTestServer, type TestServer } from '../support/server.js';

/** Rels whose hrefs are POST targets: never fetched. */
const POST_RELS = new Set(['action', 'search', 'create']);
const CONCURRENCY = 8;
const BRAND = /weblogic|oracle/i;

interface Link {
  rel: string;
  href: string;
  title?: string;
}

interface CrawlResult {
  urls: string[];
  beans: number;
  properties: number;
  problems: string[];
}

let srv: TestServer;
let result: CrawlResult;

before(async () => {
  srv = await startTestServer();
  result = await crawl(srv.latest, srv.origin);
  console.log(`crawl: ${result.urls.length} URLs, ${result.beans} beans, ${result.properties} properties`);
});

after(async () => {
  await srv.stop(true);
});

/** What a URL names, from its path below `/management/appserver`. */
function kindOf(url: string): 'versions' | 'version' | 'currentUser' | 'tree' {
  const path = new URL(url).pathname;
  const rest = path.slice(path.indexOf('/management/appserver') + '/management/appserver'.length).split('/').filter(Boolean);
  if (rest.length === 0) return 'versions';
  if (rest.length === 1) return 'version';
  if (rest.length === 2 && rest[1] === 'currentUser') return 'currentUser';
  return 'tree';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks a `links` array; returns the links (empty when malformed, with the problem recorded). */
function checkLinks(where: string, links: unknown, origin: string, problems: string[]): Link[] {
  if (!Array.isArray(links)) {
    problems.push(`${where}: links is not an array`);
    return [];
  }
  const out: Link[] = [];
  for (const l of links) {
    if (!isObject(l) || typeof l.rel !== 'string' || typeof l.href !== 'string') {
      problems.push(`${where}: malformed link ${JSON.stringify(l)}`);
      continue;
    }
    const extra = Object.keys(l).filter((k) => k !== 'rel' && k !== 'href' && k !== 'title');
    if (extra.length > 0) problems.push(`${where}: link ${l.rel} has unexpected keys ${extra.join(',')}`);
    if (l.title !== undefined && typeof l.title !== 'string') problems.push(`${where}: link ${l.rel} has a non-string title`);
    let parsed: URL | undefined;
    try {
      parsed = new URL(l.href);
    } catch {
      problems.push(`${where}: link ${l.rel} href is not an absolute URL: ${l.href}`);
    }
    if (parsed && (parsed.protocol !== 'http:' || parsed.origin !== origin)) {
      problems.push(`${where}: link ${l.rel} href is not on the server's origin: ${l.href}`);
    }
    if (l.rel === 'action') {
      const last = decodeURIComponent(new URL(l.href).pathname.split('/').pop() ?? '');
      if (l.title !== last) problems.push(`${where}: action link title ${String(l.title)} differs from its href's last segment ${last}`);
    }
    out.push(l as unknown as Link);
  }
  return out;
}

/** Counts and checks one bean (a body or a collection item); `identity` may be absent only on non-beans. */
function checkBean(where: string, bean: Record<string, unknown>, problems: string[], counts: { beans: number; properties: number }): void {
  if (!Array.isArray(bean.identity) || !bean.identity.every((s) => typeof s === 'string')) {
    problems.push(`${where}: identity is not an array of strings: ${JSON.stringify(bean.identity)}`);
    return;
  }
  counts.beans++;
  for (const key of Object.keys(bean)) if (key !== 'links' && key !== 'identity') counts.properties++;
  if ('type' in bean && bean.type === null) problems.push(`${where}: type is null`);
  if ('type' in bean && bean.type !== null && typeof bean.type !== 'string') problems.push(`${where}: type is not a string`);
}

async function crawl(start: string, origin: string): Promise<CrawlResult> {
  const seen = new Set<string>([start]);
  const queue: string[] = [start];
  const problems: string[] = [];
  const counts = { beans: 0, properties: 0 };

  const enqueue = (links: Link[]) => {
    for (const l of links) {
      if (POST_RELS.has(l.rel)) continue;
      if (!seen.has(l.href)) {
        seen.add(l.href);
        queue.push(l.href);
      }
    }
  };

  const visit = async (url: string) => {
    const r = await call(url);
    if (r.status !== 200) {
      problems.push(`${url}: status ${r.status} ${r.text.slice(0, 200)}`);
      return;
    }
    if (BRAND.test(r.text)) problems.push(`${url}: body contains a vendor brand word: ${r.text.match(BRAND)![0]}`);
    const body = r.json;
    if (!isObject(body)) {
      problems.push(`${url}: body is not a JSON object`);
      return;
    }
    enqueue(checkLinks(url, body.links, origin, problems));
    const kind = kindOf(url);
    if ('items' in body) {
      if (!Array.isArray(body.items)) {
        problems.push(`${url}: items is not an array`);
        return;
      }
      body.items.forEach((item, i) => {
        const where = `${url} items[${i}]`;
        if (!isObject(item)) {
          problems.push(`${where}: not an object`);
          return;
        }
        const itemLinks = checkLinks(where, item.links, origin, problems);
        const rels = itemLinks.map((l) => l.rel);
        if (!rels.includes('self') || !rels.includes('canonical')) problems.push(`${where}: item lacks self/canonical links`);
        enqueue(itemLinks);
        if (kind === 'versions') {
          if (typeof item.version !== 'string' || typeof item.isLatest !== 'boolean' || typeof item.lifecycle !== 'string') {
            problems.push(`${where}: malformed version item`);
          }
        } else checkBean(where, item, problems, counts);
      });
      return;
    }
    switch (kind) {
      case 'versions':
        problems.push(`${url}: the version list has no items`);
        return;
      case 'version':
        if (typeof body.version !== 'string' || typeof body.isLatest !== 'boolean' || typeof body.lifecycle !== 'string') {
          problems.push(`${url}: malformed version entity`);
        }
        return;
      case 'currentUser':
        if (typeof body.user !== 'string' || typeof body.partitionName !== 'string') problems.push(`${url}: malformed currentUser`);
        return;
      case 'tree': {
        const last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
        const rels = (body.links as Link[]).map((l) => l.rel);
        if (last.endsWith('CreateForm')) {
          if (!rels.includes('create')) problems.push(`${url}: create form without a create link`);
          if ('identity' in body) problems.push(`${url}: create form has an identity`);
          return;
        }
        if (last === 'changeManager') {
          if (typeof body.locked !== 'boolean') problems.push(`${url}: change manager without a boolean locked`);
          return;
        }
        for (const rel of ['parent', 'self', 'canonical']) if (!rels.includes(rel)) problems.push(`${url}: bean lacks a ${rel} link`);
        checkBean(url, body, problems, counts);
        return;
      }
    }
  };

  let inFlight = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (queue.length === 0 && inFlight === 0) return resolve();
      while (inFlight < CONCURRENCY && queue.length > 0) {
        const url = queue.shift()!;
        inFlight++;
        visit(url)
          .then(() => {
            inFlight--;
            pump();
          })
          .catch(reject);
      }
    };
    pump();
  });
  return { urls: [...seen], beans: counts.beans, properties: counts.properties, problems };
}

test('every linked resource answers 200 with a well-formed body', () => {
  const shown = result.problems.slice(0, 40).join('\n');
  assert.equal(result.problems.length, 0, `${result.problems.length} problems, first ones:\n${shown}`);
});

test('the crawl covers hundreds of beans and thousands of properties', () => {
  assert.ok(result.urls.length > 1000, `only ${result.urls.length} URLs`);
  assert.ok(result.beans > 500, `only ${result.beans} beans`);
  assert.ok(result.properties > 10000, `only ${result.properties} properties`);
});

test('the crawl reaches both the latest and the 12.2.1.0 URLs', () => {
  const versionOf = (u: string) => new URL(u).pathname.split('/')[3];
  const versions = new Set(result.urls.map(versionOf));
  assert.ok(versions.has('latest'), 'no latest URL visited');
  assert.ok(versions.has('12.2.1.0'), 'no 12.2.1.0 URL visited');
  assert.ok(
    result.urls.some((u) => /\/management\/appserver\/12\.2\.1\.0\/domainRuntime$/.test(u)),
    'the 12.2.1.0 domainRuntime was not reached',
  );
});

test('the crawl reaches every tree, create forms, the change manager and the running server runtimes', () => {
  for (const suffix of [
    '/latest/edit',
    '/latest/domainConfig',
    '/latest/serverConfig',
    '/latest/serverRuntime',
    '/latest/currentUser',
    '/latest/edit/serverCreateForm',
    '/latest/edit/changeManager',
    '/latest/domainRuntime/serverRuntimes/AdminServer/JVMRuntime',
    '/latest/domainRuntime/domainPartitionRuntimes/partition1/partitionLifeCycleRuntime',
  ]) {
    assert.ok(result.urls.includes(srv.origin + '/management/appserver' + suffix), `${suffix} was not reached`);
  }
});
