// The import rules of src/ (.dependency-cruiser.cjs) hold: arrows point down only, no cycles, and
// nothing below http/ knows HTTP or Fastify. A rule broken anywhere fails this test, naming the
// import that breaks it.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';

const require = createRequire(import.meta.url);
const config = require('../../../.dependency-cruiser.cjs') as IConfiguration;

async function run(files: string[]): Promise<ICruiseResult> {
  const result = await cruise(files, { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } } as never);
  return result.output as ICruiseResult;
}

test('src/ keeps its import rules', { timeout: 120_000 }, async () => {
  const output = await run(['src']);
  assert.ok(output.summary.totalCruised > 50, `only ${output.summary.totalCruised} modules were cruised: is the path right?`);
  const broken = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
  assert.deepEqual(broken, [], `import rules broken:\n${broken.join('\n')}`);
});

test('a broken rule is reported (the check is not vacuous)', { timeout: 120_000 }, async () => {
  // http/ does import core/: a rule forbidding that must be reported, naming the import.
  const probe = { name: 'probe', severity: 'error', from: { path: '^src/http/' }, to: { path: '^src/core/' } };
  const result = await cruise(['src'], { ...config.options, validate: true, ruleSet: { forbidden: [probe] } } as never);
  const output = result.output as ICruiseResult;
  const hits = output.summary.violations.filter((v) => v.rule.name === 'probe');
  assert.ok(hits.length > 0, 'the probe rule found nothing');
  assert.match(hits[0]!.from, /^src\/http\//);
});
