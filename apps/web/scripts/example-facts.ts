/**
 * Writes apps/web/src/exampleFacts.json: each example's memory fact (core/exampleFacts.ts), from
 * a compile and simulation of the design as the designer runs it. Run after changing an example
 * or the cost model: `npx tsx apps/web/scripts/example-facts.ts`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeDesign } from '../src/core/computeDesign.ts';
import { type MemoryFact, memoryFact } from '../src/core/exampleFacts.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const out: Record<string, MemoryFact> = {};
for (const file of readdirSync(join(root, 'examples'))
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const design = JSON.parse(readFileSync(join(root, 'examples', file), 'utf8'));
  const { result } = computeDesign(design, new Set(), { layout: false });
  if (!result.ok)
    throw new Error(`${file}: ${result.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  out[file.replace(/\.json$/, '')] = memoryFact(result.simulation);
  process.stdout.write(`${file}: ${JSON.stringify(out[file.replace(/\.json$/, '')])}\n`);
}
writeFileSync(join(root, 'apps/web/src/exampleFacts.json'), `${JSON.stringify(out, null, 2)}\n`);
