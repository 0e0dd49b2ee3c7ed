/**
 * A design's name follows its schedule unless the user gave it one.
 *
 * How a generated name is told from a user's: a generated name reads exactly as the examples are
 * named, `<Schedule>, p=<ranks>[, v=<chunks>], m=<microbatches>` ("1F1B, p=4, m=8",
 * "Interleaved 1F1B, p=4, v=2, m=8"), with <Schedule> one of the builders' titles below. A name of
 * that shape is taken as generated even when its numbers are out of date (the user changed the
 * microbatches since), so it still follows the next builder; any other name was given by the user
 * and is kept. The design itself records nothing about its name, so a saved design, an example
 * and an imported file are all judged the same way. The cost: a user who types such a name by hand
 * sees it follow the builder too.
 */
import { SCHEDULE_BUILDERS, type ScheduleBuilderName } from '@stagecraft/ir';
import { getBuilder } from '@stagecraft/passes';

export const BUILDER_TITLES: Readonly<Record<ScheduleBuilderName, string>> = {
  gpipe: 'GPipe',
  '1f1b': '1F1B',
  'interleaved-1f1b': 'Interleaved 1F1B',
  'looped-bfs': 'Looped BFS',
  'zb-h1': 'ZB-H1',
  'zb-h2': 'ZB-H2',
  zbv: 'ZB-V',
  'v-half': 'V-Half',
  'v-min': 'V-Min',
  dualpipev: 'DualPipeV',
  dualpipe: 'DualPipe',
};

export interface NamedSchedule {
  builder: ScheduleBuilderName;
  ranks: number;
  chunks: number;
  microbatches: number;
}

/** The generated name of a schedule; chunks are named only for builders that let them vary. */
export function scheduleName(s: NamedSchedule): string {
  const chunks = getBuilder(s.builder).fixedChunks === undefined ? `, v=${s.chunks}` : '';
  return `${BUILDER_TITLES[s.builder]}, p=${s.ranks}${chunks}, m=${s.microbatches}`;
}

const literal = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const GENERATED = new RegExp(
  `^(?:${SCHEDULE_BUILDERS.map((b) => literal(BUILDER_TITLES[b])).join('|')}), p=\\d+(?:, v=\\d+)?, m=\\d+$`,
);

/** Whether `name` was generated from a schedule (see above) rather than given by the user. */
export function isScheduleName(name: string): boolean {
  return GENERATED.test(name);
}
