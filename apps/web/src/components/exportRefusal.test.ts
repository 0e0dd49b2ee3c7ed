import type { Design } from '@stagecraft/ir';
import { exportDesign } from '@stagecraft/workflow';
import { describe, expect, it } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { EXPORT_FORMATS } from '../api/designsApi.ts';
import { exportLabel, exportRefusal } from './ExportMenu.tsx';

const withRecompute = (d: Design): Design => ({
  ...d,
  directives: [...d.directives, { op: 'recompute', filter: { PP: 1 } }],
});

describe("the export menu's greyed formats", () => {
  it.each([
    ['1f1b-p4-m8', withRecompute(example('1f1b-p4-m8'))],
    ['qwen3-1b-pp2-dp2-ep2-1f1b', example('qwen3-1b-pp2-dp2-ep2-1f1b')],
    ['dualpipe-p4-m8', example('dualpipe-p4-m8')],
    ['gpipe-p4-m8', example('gpipe-p4-m8')],
  ])('%s: greyed exactly where the exporter refuses, with its message', (_name, design) => {
    const { program } = computed(design);
    for (const f of EXPORT_FORMATS) {
      const refusal = exportRefusal(f, program);
      const written = exportDesign(design, f.key, f.options);
      if (refusal !== undefined) {
        expect(written.ok, `${f.kind} is greyed`).toBe(false);
        expect(!written.ok && `${written.errors[0]!.path}: ${written.errors[0]!.message}`).toBe(refusal);
      } else expect(written.ok, `${f.kind}: ${!written.ok && written.errors[0]?.message}`).toBe(true);
    }
  });

  it('names the plan format of a design on meshes plan@3', () => {
    const plan = EXPORT_FORMATS.find((f) => f.key === 'plan')!;
    expect(exportLabel(plan, true)).toBe('Plan (stagecraft/plan@3)');
    expect(exportLabel(plan, false)).toBe('Plan (stagecraft/plan@2)');
  });
});
