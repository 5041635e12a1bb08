// The client's spelling of the model (src/client/model/format.ts, built on the generated facts) is
// the server's (src/interchange/names.ts, built on the catalog): every key of every configuration
// type, and the folder of every type a collection may create.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Naming } from '../../src/interchange/names.js';
import { catalogWithOperations } from '../../src/operations/catalog.js';
import { folderOf, modelKey, typeInfo } from '../../src/client/model/format.js';

test('the client spells every property, child and creator folder as the server import and export do', () => {
  const catalog = catalogWithOperations();
  const naming = new Naming(catalog);
  let compared = 0;
  for (const t of catalog.types.values()) {
    if (t.kind !== 'config' && t.kind !== 'descriptor') continue;
    const info = typeInfo(t.name);
    assert.ok(info, `the client has no facts of ${t.name}`);
    const names = naming.of(t);
    for (const p of t.fields.current) {
      if (p.internal || p.linkOnly) continue;
      assert.equal(modelKey(p.name, p.array), names.modelKey(p), `${t.short}.${p.name}`);
      if (p.encrypted) assert.equal(modelKey(p.name, false, true), names.modelKey(p, true), `${t.short}.${p.name} (encrypted)`);
      compared++;
    }
    for (const p of t.children) {
      if (p.internal) continue;
      const child = info.children.get(p.name);
      assert.ok(child, `${t.short}.${p.name}: the client does not know the child`);
      assert.equal(modelKey(p.name, p.shape === 'collection'), names.modelKey(p), `${t.short}.${p.name}`);
      if (p.shape === 'collection' && p.creators.length > 1) {
        for (const c of p.creators) assert.equal(folderOf(child, c).folder, names.creatorFolder(p, catalog.type(c)), `${t.short}.${p.name} creating ${c}`);
      }
      compared++;
    }
  }
  assert.ok(compared > 5000, `only ${compared} spellings compared`);
});
