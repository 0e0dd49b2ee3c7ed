/**
 * The order search against every builder and the Zero Bubble heuristic on synthetic pipelines
 * with uneven stages and p2p time (docs/planner.md, "Order search"): p = 4, 8; m = p, 2p, 3p;
 * memory limits of 1× and 2× the stash 1F1B holds. Step times in ms, simulated; "over" where the
 * order exceeds the limit. Not a test.
 *   npx tsx bench/planner-orders.ts [--budget s]
 */
import { parseArgs } from 'node:util';
import { searchOrder } from '@stagecraft/planner';
import { unevenPipeline } from '../packages/planner/src/syntheticPipelines.ts';

const { values } = parseArgs({ options: { budget: { type: 'string' } } });
const budgetMs = Number(values.budget ?? 2) * 1_000;

/** Stage costs in ms: F, BI and BW differ per stage, as uneven layer cuts and a heavy last stage make them. */
const F = [1, 1.2, 0.9, 1.1, 1, 1.3, 0.8, 1.4];
const BI = [1.1, 1.3, 1, 1.2, 1.2, 1.4, 0.9, 1.8];
const BW = [0.8, 0.9, 0.7, 1, 0.8, 1, 0.6, 1.2];
const LATENCY_MS = 0.1;
const BUILDERS = ['gpipe', '1f1b', 'interleaved-1f1b', 'looped-bfs', 'zb-h1', 'zb-h2'];

console.log(`| p | m | limit | ${BUILDERS.join(' | ')} | ZB heuristic | planner | search s |`);
console.log(`|---|---|---|${BUILDERS.map(() => '---').join('|')}|---|---|---|`);
for (const p of [4, 8]) {
  for (const m of [p, 2 * p, 3 * p]) {
    for (const k of [1, 2]) {
      const design = unevenPipeline({ ranks: p, microbatches: m, F, BI, BW, p2pLatencyMs: LATENCY_MS });
      const t0 = performance.now();
      const r = searchOrder(design, { memoryLimit: { times1F1B: k }, budgetMs, seed: 1 });
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      if (!r.ok) {
        console.log(`| ${p} | ${m} | ${k}× | ${r.errors.map((e) => e.message).join('; ')} |`);
        continue;
      }
      const cell = (c: { stepMs: number; fits: boolean } | undefined) =>
        c === undefined ? '-' : c.fits ? c.stepMs.toFixed(2) : `over (${c.stepMs.toFixed(2)})`;
      const builders = BUILDERS.map((b) => cell(r.baselines.find((c) => c.source === b)));
      const bestBuilder = Math.min(...r.baselines.filter((c) => c.fits).map((c) => c.stepMs));
      if (r.stepMs > bestBuilder + 1e-9) throw new Error(`p=${p} m=${m} ${k}×: the search lost to a builder`);
      console.log(
        `| ${p} | ${m} | ${k}× | ${builders.join(' | ')} | ${cell(r.heuristic)} | **${r.stepMs.toFixed(2)}** (${r.best.source}) | ${s} |`,
      );
    }
  }
}
