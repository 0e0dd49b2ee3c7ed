/** Every named schedule of the `schedule` directive, by name. */
import type { ScheduleBuilderName } from '@stagecraft/ir';
import type { ScheduleBuilder } from './builder.ts';
import { dualPipe } from './dualPipe.ts';
import { dualPipeV } from './dualPipeV.ts';
import { gpipe } from './gpipe.ts';
import { interleaved1F1B } from './interleaved1F1B.ts';
import { loopedBfs } from './loopedBfs.ts';
import { oneFOneB } from './oneFOneB.ts';
import { vHalf } from './vHalf.ts';
import { vMin } from './vMin.ts';
import { zbH1 } from './zbH1.ts';
import { zbH2 } from './zbH2.ts';
import { zbv } from './zbv.ts';

export const BUILDERS: Record<ScheduleBuilderName, ScheduleBuilder> = {
  gpipe,
  '1f1b': oneFOneB,
  'interleaved-1f1b': interleaved1F1B,
  'looped-bfs': loopedBfs,
  'zb-h1': zbH1,
  'zb-h2': zbH2,
  zbv,
  'v-half': vHalf,
  'v-min': vMin,
  dualpipev: dualPipeV,
  dualpipe: dualPipe,
};

export function getBuilder(name: ScheduleBuilderName): ScheduleBuilder {
  return BUILDERS[name];
}

export type * from './builder.ts';
export { type TorchStageId, torchAction, torchCsv, torchRow, torchSlot } from './torchActions.ts';
