// Where a managed server listens, from its configuration and the port offset: the plain port
// (default 7001, none when disabled), the SSL port when its channel is open, the administration
// port when the domain enables one (the server's own, else the domain's, default 9002); the
// listen address, or every interface; and the offset as the command line takes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Topology } from '../../src/config/topology.js';
import { parsePortOffset, serverEndpoints } from '../../src/runtime/endpoints.js';
import { BeanTree } from '../../src/tree/records.js';

const C = 'appserver.management.configuration.';

function topology(domain: Record<string, unknown>, servers: Record<string, Record<string, unknown>>): Topology {
  const tree = new BeanTree();
  tree.setRoot({ type: `${C}DomainMBean`, values: { name: 'd', adminServerName: 'AdminServer', ...domain } });
  for (const [name, values] of Object.entries(servers)) tree.putItem('', 'servers', name, { type: `${C}ServerMBean`, values });
  return new Topology(tree);
}

test('the plain port with its default and the offset; the listen address or every interface', () => {
  const t = topology({}, { ms1: { listenAddress: 'host1', listenPort: 7003 }, ms2: {} });
  assert.deepEqual(serverEndpoints(t, 'ms1', 100), { server: 'ms1', host: 'host1', bindAddress: 'host1', endpoints: [{ kind: 'default', protocol: 'http', port: 7103 }] });
  assert.deepEqual(serverEndpoints(t, 'ms2', 0), { server: 'ms2', host: 'localhost', bindAddress: '0.0.0.0', endpoints: [{ kind: 'default', protocol: 'http', port: 7001 }] });
});

test('a disabled plain port is not opened; an open SSL channel is, shifted too', () => {
  const t = topology({}, { ms1: { listenPort: 7003, listenPortEnabled: false } });
  assert.deepEqual(serverEndpoints(t, 'ms1', 10).endpoints, []);
  assert.deepEqual(serverEndpoints(t, 'ms1', 10, 7002).endpoints, [{ kind: 'ssl', protocol: 'https', port: 7012 }]);
});

test("the administration port: only when the domain enables it; the server's own, else the domain's, else 9002", () => {
  const off = topology({}, { ms1: { administrationPort: 9100 } });
  assert.deepEqual(serverEndpoints(off, 'ms1', 0).endpoints.map((e) => e.kind), ['default']);
  const on = topology({ administrationPortEnabled: true }, { ms1: { administrationPort: 9100 }, ms2: {} });
  assert.deepEqual(serverEndpoints(on, 'ms1', 5).endpoints.at(-1), { kind: 'administration', protocol: 'https', port: 9105 });
  assert.equal(serverEndpoints(on, 'ms2', 0).endpoints.at(-1)!.port, 9002);
  const domainPort = topology({ administrationPortEnabled: true, administrationPort: 9500 }, { ms2: { administrationPort: 0 } });
  assert.equal(serverEndpoints(domainPort, 'ms2', 0).endpoints.at(-1)!.port, 9500);
});

test('--port-offset takes a whole number from 0 to 65535', () => {
  assert.equal(parsePortOffset('0'), 0);
  assert.equal(parsePortOffset('1000'), 1000);
  assert.equal(parsePortOffset('65535'), 65535);
  for (const bad of ['', '-1', '65536', '1e3', '0x10', '12.5', 'ten', '123456']) {
    assert.throws(() => parsePortOffset(bad), new RegExp(`--port-offset takes a whole number from 0 to 65535, not '${bad}'`), bad);
  }
});
