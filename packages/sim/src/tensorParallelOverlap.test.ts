import { type Design, parseDesign } from '@stagecraft/ir';
import { compile, exportPiperProgram } from '@stagecraft/passes';
import { beforeAll, describe, expect, it } from 'vitest';
import { exampleDesigns } from '../../../test/repoFiles.ts';
import { tp8Layer } from '../../../test/tensorParallelDesigns.ts';
import { simulate } from './simulate.ts';

let examples: { file: string; design: Design }[] = [];
beforeAll(async () => {
  examples = await exampleDesigns();
});

/** A Llama 3.1 405B PP16 × TP8 example with sequence parallelism, its TP communication overlapped or not. */
function llama405b(file: string, overlap: boolean): Design {
  const design = examples.find((e) => e.file.endsWith(file))?.design;
  if (!design) throw new Error(`examples/${file} is missing`);
  return {
    ...design,
    directives: design.directives.map((d) =>
      d.op === 'shard_tensor'
        ? { ...d, sequence_parallel: true, ...(overlap ? { comm_overlap: true } : {}) }
        : d,
    ),
  };
}

/** `design` with comm_overlap on its shard_tensor directives. */
function withOverlap(design: Design): Design {
  return {
    ...design,
    directives: design.directives.map((d) => (d.op === 'shard_tensor' ? { ...d, comm_overlap: true } : d)),
  };
}

function run(design: Design) {
  const c = compile(design, { keepSnapshots: false });
  if (!c.ok) throw new Error(c.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  const s = simulate(c.plan, { keepTimeline: false });
  if (!s.ok) throw new Error('simulation failed');
  const gpus = s.sim.devices.length;
  const by = s.sim.exposedCommByKindMs ?? {};
  // These designs have no data parallelism: every reduce-scatter and all-gather is tensor parallel.
  const exposedTpMs = ((by.REDUCE_SCATTER ?? 0) + (by.ALL_GATHER ?? 0)) / gpus;
  return { stepMs: s.sim.makespanMs, exposedTpMs, plan: c.plan };
}

describe('shard_tensor comm_overlap (TP communication pipelined with the GEMMs)', () => {
  it('cuts the exposed TP communication of Llama 3.1 405B PP16 × TP8 and keeps interleaving ahead of 1F1B', () => {
    const schedules = ['llama3.1-405b-pp16-tp8-1f1b.json', 'llama3.1-405b-pp16-tp8-interleaved-1f1b.json'];
    const [plain, interleaved] = schedules.map((file) => ({
      off: run(llama405b(file, false)),
      on: run(llama405b(file, true)),
    }));
    for (const r of [plain!, interleaved!]) {
      expect(r.on.exposedTpMs).toBeLessThan(r.off.exposedTpMs * 0.6);
      expect(r.on.stepMs).toBeLessThan(r.off.stepMs);
    }
    expect(interleaved!.off.stepMs).toBeLessThan(plain!.off.stepMs);
    expect(interleaved!.on.stepMs).toBeLessThan(plain!.on.stepMs);
  }, 120_000);

  it('leaves a quarter of each reduce-scatter and an eighth of each all-gather on the critical path (TP8)', () => {
    const { plan } = run(withOverlap(tp8Layer(true)));
    const all = plan.devices[0]!.streams.flatMap((s) => s.instructions);
    const bytes = (id: string) => {
      const i = all.find((x) => x.id === id);
      if (i?.op !== 'REDUCE_SCATTER' && i?.op !== 'ALL_GATHER') throw new Error(`no ${id}`);
      return i.bytes;
    };
    const whole = 4096 * 4096 * 2;
    expect(bytes('REDUCE_SCATTER.tp.F.b1.mb0')).toBe(whole / 4);
    expect(bytes('REDUCE_SCATTER.tp-overlap.F.b1.mb0')).toBe((whole * 3) / 4);
    expect(bytes('ALL_GATHER.tp.F.b1.mb0')).toBe(whole / 8);
    expect(bytes('ALL_GATHER.tp-overlap.F.b1.mb0')).toBe((whole * 7) / 8);
  });

  it('is refused without sequence parallelism, at the option', () => {
    const r = parseDesign(withOverlap(tp8Layer(false)));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.map((e) => e.path)).toEqual(['directives[2].comm_overlap']);
      expect(r.errors[0]!.message).toMatch(/set sequence_parallel: true/);
    }
  });

  it('has no Piper form: the export refuses the design at the directive', () => {
    const overlapped = withOverlap(tp8Layer(true));
    const c = compile(overlapped);
    if (!c.ok) throw new Error('compile failed');
    const piper = exportPiperProgram(overlapped, c.program, c.plan, c.dag);
    expect(piper.ok).toBe(false);
  });
});
