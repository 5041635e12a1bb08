// The fast YAML writer and reader of models agree with the general YAML library: what writeYaml
// writes, the library reads as the same values, and the subset reader reads the same; text outside
// the subset is left to the library (undefined).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { readYamlSubset, writeYaml, type YValue } from '../../src/client/model/yaml-text.js';

const awkward = ['true', 'False', 'null', '~', '123', '-7', '1e5', '0x1F', '.5', 'a: b', 'a:b', ' lead', 'trail ', 'x #y', '#x', '', '@@PROP:x.y@@',
  'jdbc:oracle:thin:@db:1521/s', '-x', '- x', '{a}', '[b]', "it's", '"q"', 'yes', 'no', 'on', 'ä ü', 'line\nbreak', 'tab\there', '*star', '&amp', '!bang', '%p', '|pipe', '>gt', '?q', 'a,b', 'C:\\dir', 'x: ', ':', '::1'];

function plainOf(v: YValue | null): unknown {
  if (v === null) return null;
  if (v.kind === 'scalar') return v.value;
  if (v.kind === 'seq') return v.items.map(plainOf);
  return Object.fromEntries(v.items.map((p) => [p.key, plainOf(p.value)]));
}

test('what the writer writes, the library and the subset reader read back the same', () => {
  const m = new Map<string, unknown>();
  const inner = new Map<string, unknown>();
  awkward.forEach((s, i) => inner.set(`k${i}`, s));
  awkward.forEach((s, i) => inner.set(s === '' ? 'empty' : s, i));
  inner.set('list', awkward);
  inner.set('numbers', [1, 2.5, -3, true, false, null]);
  inner.set('none', new Map());
  inner.set('nothing', []);
  m.set('topology', new Map([['Server', new Map([['ms1', inner]])]]));
  const text = writeYaml(m);
  const byLibrary = parse(text, { version: '1.2', schema: 'core' });
  const subset = readYamlSubset(text);
  assert.notEqual(subset, undefined, 'the subset reader gave up on text the writer wrote');
  assert.deepEqual(plainOf(subset!), byLibrary);
  assert.deepEqual(byLibrary.topology.Server.ms1.list, awkward);
});

test('text outside the subset is left to the library; places are 1-based lines and columns', () => {
  for (const t of ['a: &x 1\nb: *x\n', 'a: |\n  text\n', "a: 'single'\n", 'a: {b: 1}\n', 'a: 1 # note\n', '- 1\n', 'a: 1\na: 2\n', '---\na: 1\n', 'a:\n\tb: 1\n']) {
    assert.equal(readYamlSubset(t), undefined, JSON.stringify(t));
  }
  const v = readYamlSubset('topology:\n  Server:\n    ms1:\n      ListenPort: 7003\n') as Extract<YValue, { kind: 'map' }>;
  const ms1 = ((v.items[0]!.value as any).items[0].value as any).items[0];
  assert.equal(ms1.key, 'ms1');
  assert.deepEqual([ms1.line, ms1.col], [3, 5]);
  const port = ms1.value.items[0];
  assert.deepEqual([port.key, port.line, port.col, port.value.value, port.value.col], ['ListenPort', 4, 7, 7003, 19]);
});
