/** Designs the web core's tests start from: the repository's examples. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Design, parseDesign } from '@stagecraft/ir';
import { type ComputeOk, computeDesign } from '../src/core/computeDesign.ts';
import type { DagGraph } from '../src/core/dagGraph.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

export function example(name: string): Design {
  const d = parseDesign(JSON.parse(readFileSync(join(root, 'examples', `${name}.json`), 'utf8')));
  if (!d.ok) throw new Error(`example ${name} does not parse`);
  return d.design;
}

export function computed(design: Design, expanded: string[] = []): ComputeOk & { graph: DagGraph } {
  const { result } = computeDesign(design, new Set(expanded));
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  if (!result.graph) throw new Error('computeDesign laid out no graph');
  return { ...result, graph: result.graph };
}
