// Reading deployed archives: a web archive's servlets, context root and session timeout; an
// enterprise archive's web and EJB modules (with and without application.xml); exploded archives;
// hostile archives (entities, an entry that lies about its size, garbage) and paths outside the
// data directory are not read, and the application shows the stand-in of its type.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { ApplicationArchives } from '../../src/runtime/archives/applications.js';
import type { EjbModule, WebModule } from '../../src/runtime/archives/modules.js';
import { makeZip, webXml } from '../support/zip.js';

const dir = mkdtempSync(join(tmpdir(), 'appserver-archives-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const archives = new ApplicationArchives(dir);

const SHOP_XML = webXml([
  { name: 'CartServlet', className: 'shop.CartServlet', patterns: ['/cart/*', '/basket'] },
  { name: 'CheckoutServlet', className: 'shop.CheckoutServlet', patterns: ['/checkout'] },
], 15);

function write(name: string, bytes: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const servletNames = (m: WebModule) => m.servlets.map((s) => s.name);

test('a web archive: its declared servlets with their patterns, the container servlets, the session timeout', () => {
  write('shop.war', makeZip({ 'WEB-INF/web.xml': SHOP_XML, 'index.jsp': '<html/>', 'WEB-INF/classes/shop/CartServlet.class': 'x' }));
  const described = archives.modules({ name: 'shop', moduleType: 'war', sourcePath: 'shop.war' });
  assert.equal(described.fromArchive, true, described.problem);
  const [web] = described.modules as [WebModule];
  assert.equal(web.kind, 'web');
  assert.equal(web.contextRoot, '/shop');
  assert.deepEqual(servletNames(web), ['CartServlet', 'CheckoutServlet', 'JspServlet', 'FileServlet']);
  assert.deepEqual(web.servlets[0], { name: 'CartServlet', className: 'shop.CartServlet', urlPatterns: ['/cart/*', '/basket'] });
  assert.equal(web.sessionTimeoutSecs, 15 * 60);
});

test('an enterprise archive: application.xml names its web module (nested, with its context root) and its EJB module', () => {
  const ejbJar = `<?xml version="1.0"?>
<ejb-jar><enterprise-beans>
  <session><ejb-name>PriceBean</ejb-name><session-type>Stateless</session-type></session>
  <session><ejb-name>CartBean</ejb-name><session-type>Stateful</session-type></session>
  <message-driven><ejb-name>OrderListener</ejb-name></message-driven>
</enterprise-beans></ejb-jar>`;
  const application = `<?xml version="1.0"?>
<application xmlns="http://xmlns.jcp.org/xml/ns/javaee">
  <module><web><web-uri>store-web.war</web-uri><context-root>store</context-root></web></module>
  <module><ejb>store-ejb.jar</ejb></module>
</application>`;
  write('store.ear', makeZip({
    'META-INF/application.xml': application,
    'store-web.war': makeZip({ 'WEB-INF/web.xml': SHOP_XML }),
    'store-ejb.jar': makeZip({ 'META-INF/ejb-jar.xml': ejbJar }),
  }));
  const described = archives.modules({ name: 'store', moduleType: 'ear', sourcePath: join(dir, 'store.ear') });
  assert.equal(described.fromArchive, true, described.problem);
  const [web, ejb] = described.modules as [WebModule, EjbModule];
  assert.equal(web.uri, 'store-web.war');
  assert.equal(web.contextRoot, '/store');
  assert.deepEqual(servletNames(web), ['CartServlet', 'CheckoutServlet', 'JspServlet', 'FileServlet']);
  assert.equal(ejb.kind, 'ejb');
  assert.deepEqual(ejb.ejbs, [
    { name: 'PriceBean', kind: 'Stateless' },
    { name: 'CartBean', kind: 'Stateful' },
    { name: 'OrderListener', kind: 'MessageDriven' },
  ]);
});

test('an enterprise archive without application.xml: its web archives are its web modules, named after their files', () => {
  write('plain.ear', makeZip({ 'a.war': makeZip({ 'WEB-INF/web.xml': SHOP_XML }), 'lib/util.jar': makeZip({ 'x.class': 'x' }) }));
  const described = archives.modules({ name: 'plain', moduleType: 'ear', sourcePath: 'plain.ear' });
  assert.deepEqual(described.modules.map((m) => [m.kind, m.uri, (m as WebModule).contextRoot]), [['web', 'a.war', '/a']]);
});

test('an exploded web archive is read from its folder', () => {
  mkdirSync(join(dir, 'exploded.war', 'WEB-INF'), { recursive: true });
  writeFileSync(join(dir, 'exploded.war', 'WEB-INF', 'web.xml'), webXml([{ name: 'Hello', className: 'h.Hello', patterns: ['/hello'] }]));
  const [web] = archives.modules({ name: 'exploded', moduleType: 'war', sourcePath: 'exploded.war' }).modules as [WebModule];
  assert.deepEqual(servletNames(web), ['Hello', 'JspServlet', 'FileServlet']);
});

test('an old descriptor naming its DTD is read; one declaring entities is not', () => {
  const old = `<?xml version="1.0"?>\n<!DOCTYPE web-app PUBLIC "-//Example//DTD Web Application 2.3//EN" "http://example.invalid/web-app_2_3.dtd">\n<web-app><servlet><servlet-name>Old</servlet-name><servlet-class>o.Old</servlet-class></servlet></web-app>`;
  write('old.war', makeZip({ 'WEB-INF/web.xml': old }));
  assert.deepEqual(servletNames(archives.modules({ name: 'old', moduleType: 'war', sourcePath: 'old.war' }).modules[0] as WebModule), ['Old', 'JspServlet', 'FileServlet']);
  const evil = `<?xml version="1.0"?>\n<!DOCTYPE web-app [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>\n<web-app><servlet><servlet-name>&b;</servlet-name><servlet-class>e.E</servlet-class></servlet></web-app>`;
  write('evil.war', makeZip({ 'WEB-INF/web.xml': evil }));
  assert.deepEqual(servletNames(archives.modules({ name: 'evil', moduleType: 'war', sourcePath: 'evil.war' }).modules[0] as WebModule), ['JspServlet', 'FileServlet']);
});

test('an entry that inflates beyond the size it declares is not read', () => {
  // 8 MiB of one letter deflates to a few KiB; the header says 100 bytes.
  const huge = Buffer.alloc(8 * 1024 * 1024, 'a');
  const zip = makeZip({ 'WEB-INF/web.xml': huge });
  const packed = deflateRawSync(huge);
  // The sizes sit at fixed places of the local header (22) and of the central directory entry (24).
  zip.writeUInt32LE(100, 22);
  zip.writeUInt32LE(100, 30 + 'WEB-INF/web.xml'.length + packed.length + 24);
  write('bomb.war', zip);
  const described = archives.modules({ name: 'bomb', moduleType: 'war', sourcePath: 'bomb.war' });
  assert.deepEqual(servletNames(described.modules[0] as WebModule), ['JspServlet', 'FileServlet']);
});

test('garbage, a missing file and a path outside the data directory give the stand-in of the type, with the reason', () => {
  write('junk.war', 'this is not a zip archive at all');
  const junk = archives.modules({ name: 'junk', moduleType: 'war', sourcePath: 'junk.war' });
  assert.equal(junk.fromArchive, false);
  assert.match(junk.problem ?? '', /zip/);
  assert.deepEqual(junk.modules, [{ kind: 'web', uri: 'junk.war', contextRoot: '/junk', servlets: junk.modules[0]!.kind === 'web' ? (junk.modules[0] as WebModule).servlets : [], sessionTimeoutSecs: 3600 }]);
  assert.match(archives.modules({ name: 'gone', moduleType: 'war', sourcePath: 'gone.war' }).problem ?? '', /does not exist/);
  for (const outside of ['../x.war', '/etc/passwd', join(dir, '..', 'y.war')]) {
    const r = archives.modules({ name: 'out', moduleType: 'war', sourcePath: outside });
    assert.equal(r.fromArchive, false, outside);
    assert.match(r.problem ?? '', /outside the data directory/, outside);
  }
  const ejb = archives.modules({ name: 'beans', moduleType: 'jar', sourcePath: 'nothing.jar' });
  assert.deepEqual(ejb.modules, [{ kind: 'ejb', uri: 'beans.jar', ejbs: [] }]);
});

test('an archive is read again only when it changed', () => {
  const path = write('change.war', makeZip({ 'WEB-INF/web.xml': webXml([{ name: 'One', className: 'c.One', patterns: ['/one'] }]) }));
  const first = archives.modules({ name: 'change', moduleType: 'war', sourcePath: 'change.war' });
  assert.equal(archives.modules({ name: 'change', moduleType: 'war', sourcePath: 'change.war' }).modules, first.modules, 'remembered');
  writeFileSync(path, makeZip({ 'WEB-INF/web.xml': webXml([{ name: 'Two', className: 'c.Two', patterns: ['/two'] }, { name: 'Three', className: 'c.Three', patterns: ['/3'] }]) }));
  utimesSync(path, new Date(), new Date(Date.now() + 5000));
  assert.deepEqual(servletNames(archives.modules({ name: 'change', moduleType: 'war', sourcePath: 'change.war' }).modules[0] as WebModule), ['Two', 'Three', 'JspServlet', 'FileServlet']);
});
