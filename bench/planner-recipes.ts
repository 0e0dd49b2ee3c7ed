/**
 * The layout search on real models beside their published layouts (docs/planner.md, "Beside the
 * published recipes"): for each, the space's size, the time to the front on this machine, the
 * chosen layout, and the published layout (the repository's example of it) simulated the same
 * way. Not a test.
 *   npx tsx bench/planner-recipes.ts [--budget s] [--workers n] [--only name]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Design, parseDesign } from '@stagecraft/ir';
import { searchLayouts } from '@stagecraft/planner';
import { runDesign, simulateRun } from '@stagecraft/workflow';

const { values } = parseArgs({
  options: { budget: { type: 'string' }, workers: { type: 'string' }, only: { type: 'string' } },
});
const budgetMs = Number(values.budget ?? 60) * 1_000;
const workers = values.workers === undefined ? undefined : Number(values.workers);

interface Recipe {
  name: string;
  /** The example holding the published layout; the search lays out its model on its cluster. */
  example: string;
  nodes?: number;
  /** Sequences per step the search runs at. */
  globalBatch: number;
  /** The published global batch and where it is from, when the search runs at less. */
  publishedBatch?: string;
  published: string;
}

const RECIPES: Recipe[] = [
  {
    name: 'Llama-3-70B, 64 H100',
    example: 'llama3-70b-tp8-pp4-dp2.json',
    globalBatch: 32,
    publishedBatch:
      '512 sequences of 8,192 (Megatron-Bridge, recipes/llama/llama3_70b.py, pretrain_config: global_batch_size=512)',
    published: 'TP8 × PP4 × DP2, 1F1B, ZeRO-1 (the repository example)',
  },
  {
    name: 'Llama-3.1-405B, 16,384 H100',
    example: 'llama3.1-405b-tp8-pp16-dp64.json',
    nodes: 2048,
    globalBatch: 2048,
    published: 'TP8 × CP1 × PP16 × DP128, 16M tokens (Llama 3 Table 4)',
  },
  {
    name: 'Qwen3-30B-A3B, 16 H100',
    example: 'qwen3-30b-a3b-dp16-ep16.json',
    globalBatch: 128,
    published: 'TP1 × PP1 × EP16, ZeRO-1 (Megatron-Bridge recipe)',
  },
  {
    name: 'Qwen3-30B-A3B, 32 H100',
    example: 'qwen3-30b-a3b-pp4-ep8-1f1b.json',
    globalBatch: 128,
    published: 'PP4 × EP8, 1F1B, ZeRO-1 (the repository example)',
  },
  {
    name: 'DeepSeek-V3, 2,048 H100',
    example: 'deepseek-v3-pp16-dp2-ep64-dualpipe.json',
    globalBatch: 64,
    publishedBatch:
      '15,360 sequences of 4,096 after the first 469B tokens (DeepSeek-V3, arXiv 2412.19437, §4.2 Hyper-Parameters)',
    published: 'PP16 × DP2 × EP64, DualPipe, ZeRO-1, recompute (DeepSeek-V3 §3.2)',
  },
];

function load(file: string): Design {
  const parsed = parseDesign(
    JSON.parse(readFileSync(new URL(`../examples/${file}`, import.meta.url), 'utf8')),
  );
  if (!parsed.ok) throw new Error(`${file}: ${JSON.stringify(parsed.errors)}`);
  return parsed.design;
}

const GIB = 2 ** 30;
console.log(
  '| model | space | pruned | simulated | time to front | chosen layout | step | tokens/s/GPU | peak | published layout | its step | its peak |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of RECIPES) {
  if (values.only && !r.name.includes(values.only)) continue;
  let published = load(r.example);
  if (r.nodes) {
    // The published layout's DP degree follows the cluster: DP128 on 2,048 nodes.
    published = {
      ...published,
      cluster: { ...(published.cluster as object), nodes: r.nodes } as Design['cluster'],
    };
  }
  const t0 = performance.now();
  // CPU time of the process and its worker threads: what the search costs however loaded the machine is.
  const cpu0 = process.cpuUsage();
  let row: string;
  try {
    const result = await searchLayouts(
      { design: published, globalBatch: r.globalBatch, budgetMs },
      workers === undefined ? {} : { workers },
    );
    const cpu = process.cpuUsage(cpu0);
    const s = `${((performance.now() - t0) / 1000).toFixed(1)} s (CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s)`;
    const b = result.best;
    row = `| ${r.name} | ${result.spaceSize.toLocaleString('en-US')} | ${result.pruned.toLocaleString('en-US')} | ${result.tried}${result.stoppedEarly ? ' (budget)' : ' (all)'} | ${s} | ${b.design.name} | ${(b.stepMs / 1000).toFixed(2)} s | ${b.tokensPerSecPerGpu?.toFixed(0) ?? '-'} | ${(b.peakMemoryBytes / GIB).toFixed(1)} GiB |`;
  } catch (e) {
    row = `| ${r.name} | - | - | - | ${((performance.now() - t0) / 1000).toFixed(1)} s | ${(e as Error).message} | | | |`;
  }
  const run = r.nodes ? undefined : runDesign(published);
  const sim = run?.ok ? simulateRun(run, false).result : undefined;
  const figures =
    sim?.ok === true
      ? `${(sim.sim.makespanMs / 1000).toFixed(2)} s | ${(Math.max(...sim.sim.devices.map((d) => d.peakMemoryBytes)) / GIB).toFixed(1)} GiB`
      : 'not simulated | ';
  console.log(`${row} ${r.published} | ${figures} |`);
  if (r.publishedBatch)
    console.error(`${r.name}: searched at ${r.globalBatch} sequences; published ${r.publishedBatch}`);
}
console.error(
  `load: ${(await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(', ')}`,
);
