/**
 * Small or careless files that once exhausted, hung or flooded the CLI, each made here (none is
 * committed) with the command that reads it and what the CLI now answers: the first line of its
 * error and, for floods, how many lines it may print. Shared by hostileFiles.test.ts, which runs
 * each with a deadline, and bench/hostile-files.ts, which measures time and peak memory for
 * docs/reliability.md.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface HostileCase {
  /** What the file is, as the table in docs/reliability.md names it. */
  name: string;
  /** Writes the file(s) into `dir`; returns the command line (without `stagecraft`). */
  make(dir: string, examples: string): string[];
  /** The first line of stderr, as a pattern. */
  firstLine: RegExp;
  /** At most this many lines on stderr (the first hundred issues and their count). */
  maxLines: number;
}

/** A Stagecraft trace of `events` (complete events with an instruction id in `args.id`). */
function stagecraftTrace(events: string[]): string {
  return `{"otherData":{"format":"stagecraft chrome-trace"},"traceEvents":[${events.join(',')}]}`;
}

function span(id: string, pid: number, ts: number, dur: number | string): string {
  return `{"name":"${id}","ph":"X","pid":${pid},"tid":1,"ts":${ts},"dur":${dur},"args":{"id":"${id}"}}`;
}

function write(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `stagecraft import <file> --format <format>` of a file written into the case's folder. */
function imported(file: string, format: 'torch-csv' | 'piper', text: () => string): HostileCase['make'] {
  return (dir) => ['import', write(dir, file, text()), '--format', format];
}

/** `stagecraft <command> <the 1F1B example> --trace|--measured <file>` of a written trace. */
function measured(command: 'calibrate' | 'compare', file: string, text: () => string): HostileCase['make'] {
  const flag = command === 'calibrate' ? '--trace' : '--measured';
  return (dir, examples) => [command, join(examples, '1f1b-p4-m8.json'), flag, write(dir, file, text())];
}

/**
 * A design of a few hundred bytes whose one number makes it too large to build, for `command`:
 * refused by its size before the model is lowered or the cluster expanded.
 */
function hugeDesign(
  command: 'validate' | 'simulate',
  file: string,
  model: string,
  cluster: string,
): HostileCase['make'] {
  return (dir) => [
    command,
    write(
      dir,
      `${command}-${file}`,
      `{"format":"stagecraft/design@1","model":${model},"cluster":${cluster},"directives":[{"op":"schedule","builder":"1f1b","ranks":4,"microbatches":8}]}`,
    ),
  ];
}

const SYNTHETIC = '{"kind":"synthetic","stages":4,"costs":{"F":1,"BI":1,"BW":1}}';
const FOUR_DEVICES = '{"kind":"ideal","devices":4}';

/** The four designs of a few hundred bytes, each under `validate` and `simulate`. */
const HUGE_DESIGNS: HostileCase[] = (['validate', 'simulate'] as const).flatMap((command) => [
  {
    name: `design with \`stages: 1e8\` (\`${command}\`)`,
    make: hugeDesign(
      command,
      'stages.json',
      '{"kind":"synthetic","stages":1e8,"costs":{"F":1,"BI":1,"BW":1}}',
      FOUR_DEVICES,
    ),
    firstLine:
      /^error: design\.model\.stages: 100,000,000 blocks make at least 200,000,000 ops, over the limit of 2,000,000$/,
    maxLines: 1,
  },
  {
    name: `transformer with \`layers: 1e7\` (\`${command}\`)`,
    make: hugeDesign(
      command,
      'layers.json',
      '{"kind":"transformer","preset":"llama3-8b","microbatchSize":1,"layers":1e7,"annotate":{"PP":4}}',
      FOUR_DEVICES,
    ),
    firstLine:
      /^error: design\.model\.layers: [\d,]+ blocks make at least [\d,]+ ops, over the limit of 2,000,000$/,
    maxLines: 1,
  },
  {
    name: `ideal cluster of \`devices: 1e9\` (\`${command}\`)`,
    make: hugeDesign(command, 'devices.json', SYNTHETIC, '{"kind":"ideal","devices":1e9}'),
    firstLine:
      /^error: design\.cluster\.devices: 1,000,000,000 devices are more than the op limit of 2,000,000 allows$/,
    maxLines: 1,
  },
  {
    name: `preset cluster of \`nodes: 1e8\` (\`${command}\`)`,
    make: hugeDesign(command, 'nodes.json', SYNTHETIC, '{"preset":"dgx-h100","nodes":1e8}'),
    firstLine:
      /^error: design\.cluster\.nodes: 800,000,000 devices are more than the op limit of 2,000,000 allows$/,
    maxLines: 1,
  },
]);

/** Issues listed before only their count: the first hundred and one line counting them all. */
const CAPPED = 101;

export const HOSTILE_CASES: HostileCase[] = [
  {
    name: 'torch CSV naming microbatch 9,999,999 (28 bytes)',
    make: imported('far.csv', 'torch-csv', () => '0F0,0B0,0F9999999,0B9999999\n'),
    firstLine:
      /^error: .*far\.csv: row 1, cell 3: 1 stages × 10,000,000 microbatches would make about 30,000,000 ops, over the limit of 2,000,000$/,
    maxLines: 1,
  },
  {
    name: 'torch CSV with a 23-digit stage',
    make: imported('digits.csv', 'torch-csv', () => '12345678901234567890123F0,12345678901234567890123B0\n'),
    firstLine:
      /^error: .*digits\.csv: row 1, cell 1: "12345678901234567890123F0": stage 12345678901234567890123 is not a usable index$/,
    maxLines: 2,
  },
  {
    name: 'torch CSV of 200,000 bad cells (1.4 MB)',
    make: imported(
      'bad.csv',
      'torch-csv',
      () => `${Array.from({ length: 2000 }, () => Array(100).fill('0X0').join(',')).join('\n')}\n`,
    ),
    firstLine: /^error: .*bad\.csv: row 1, cell 1: unknown action type "X" in "0X0"/,
    maxLines: CAPPED,
  },
  {
    name: 'torch CSV of 100,000 backwards before their forwards',
    make: imported(
      'backwards.csv',
      'torch-csv',
      () => `${Array.from({ length: 100_000 }, (_, m) => `0B${m}`).join(',')},0F0\n`,
    ),
    firstLine:
      /^error: .*backwards\.csv: row 1, cell 1: stage 0 B of microbatch 0 runs on rank 0 before its forward \(F\), which rank 0 runs later/,
    maxLines: CAPPED,
  },
  {
    name: 'Piper `place` on PP 1,000,000',
    make: imported('pp.json', 'piper', () => '[{"op":"place","filter":{"PP":1000000},"devices":[0]}]'),
    firstLine:
      /^error: .*pp\.json: directives\[0\]\.filter\.PP: 1,000,001 stages × 1 microbatches would make about 3,000,003 ops, over the limit of 2,000,000$/,
    maxLines: 1,
  },
  {
    name: 'Piper `place` on PP 1e8',
    make: imported('pp8.json', 'piper', () => '[{"op":"place","filter":{"PP":1e8},"devices":[0]}]'),
    firstLine:
      /^error: .*pp8\.json: directives\[0\]\.filter\.PP: 100,000,001 stages × 1 microbatches would make about /,
    maxLines: 1,
  },
  {
    name: 'Piper `place` on device 999,999,999',
    make: imported('dev.json', 'piper', () => '[{"op":"place","filter":{"PP":0},"devices":[999999999]}]'),
    firstLine:
      /^error: .*dev\.json: directives\[0\]\.devices\[0\]: 1,000,000,000 devices are more than the op limit of 2,000,000 allows$/,
    maxLines: 1,
  },
  {
    name: 'Piper program of 50,000 unknown ops',
    make: imported('ops.json', 'piper', () =>
      JSON.stringify(Array.from({ length: 50_000 }, () => ({ op: 'bogus' }))),
    ),
    firstLine: /^error: .*ops\.json: directives\[0\]\.op: unknown Piper op "bogus"/,
    maxLines: CAPPED,
  },
  {
    name: 'import `--model` with `stages: 1e8`',
    make: (dir) => [
      'import',
      write(dir, 'two.csv', '0F0,0B0\n'),
      '--format',
      'torch-csv',
      '--model',
      write(dir, 'huge-model.json', '{"kind":"synthetic","stages":1e8,"costs":{"F":1,"BI":1,"BW":1}}'),
    ],
    firstLine: /^error: .*huge-model\.json: model: 100,000,000 stages × 1 microbatches would make about /,
    maxLines: 1,
  },
  {
    name: 'trace repeating one span id 100,000 times (`compare --measured`)',
    make: measured('compare', 'repeated.json', () =>
      stagecraftTrace(Array.from({ length: 100_000 }, (_, i) => span('F.b0.mb0', 0, i * 10, 5))),
    ),
    firstLine: /^100000 measured spans matched \(steps 1–99,999 used\)$/,
    maxLines: 0,
  },
  {
    name: 'trace repeating one span id 100,000 times (`calibrate`)',
    make: measured('calibrate', 'repeated-cal.json', () =>
      stagecraftTrace(Array.from({ length: 100_000 }, (_, i) => span('F.b0.mb0', 0, i * 10, 5))),
    ),
    firstLine: /^100000 measured spans matched \(steps 1–99,999 used\); 1 of 4 blocks measured$/,
    maxLines: 0,
  },
  {
    name: 'trace of 100,000 spans with bad durations (5 MB)',
    make: measured('calibrate', 'bad-dur.json', () =>
      stagecraftTrace(Array.from({ length: 100_000 }, (_, i) => span('F.b0.mb0', 0, i, '"x"'))),
    ),
    firstLine: /^error: .*bad-dur\.json: traceEvents\[0\]\.dur: expected a duration ≥ 0 in microseconds/,
    maxLines: CAPPED,
  },
  {
    name: 'trace of 1,000,000 events that are not objects (2 MB)',
    make: measured('calibrate', 'rank0.json', () => `[${Array(1_000_000).fill('0').join(',')}]`),
    firstLine: /^error: .*rank0\.json: \[0\]: expected an event object$/,
    maxLines: CAPPED,
  },
  {
    name: "another design's trace: 20 of 2,308 spans name an instruction of the plan (`calibrate`)",
    make: measured('calibrate', 'other.json', () =>
      stagecraftTrace(
        Array.from({ length: 2308 }, (_, i) =>
          i < 20
            ? span(`F.b${i % 4}.mb${i >> 2}`, i % 4, i * 10, 5)
            : span(`F.b${4 + (i % 60)}.mb${i}`, i % 4, i * 10, 5),
        ),
      ),
    ),
    firstLine:
      /^error: .*1f1b-p4-m8\.json: the trace does not cover the design's plan: 2,288 of its 2,308 spans \(first step\) name no instruction of the plan, and /,
    maxLines: 1,
  },
  {
    name: 'trace with a duration of 1e308 µs',
    make: measured('calibrate', 'absurd.json', () =>
      stagecraftTrace([span('F.b0.mb0', 0, 0, 5), span('F.b0.mb1', 0, 10, '1e308')]),
    ),
    firstLine:
      /^error: .*absurd\.json: traceEvents\[1\]\.dur: 1e\+308 µs is over a day: the trace's duration is wrong/,
    maxLines: 1,
  },
  {
    name: 'stage table of 50,000 bad rows (CSV, 0.4 MB)',
    make: measured(
      'calibrate',
      'bad-rows.csv',
      () => `stage,F\n${Array.from({ length: 50_000 }, (_, i) => `${i},-1`).join('\n')}\n`,
    ),
    firstLine: /^error: .*bad-rows\.csv: row 2, column 2: expected milliseconds ≥ 0, got "-1"$/,
    maxLines: CAPPED,
  },
  {
    name: 'stage table of 1,000,000 stages',
    make: measured(
      'calibrate',
      'million.csv',
      () => `stage,F\n${Array.from({ length: 1_000_000 }, (_, i) => `${i},1`).join('\n')}\n`,
    ),
    firstLine:
      /^error: .*million\.csv: row 285716: 1,000,000 stages: no design within the op limit of 2,000,000 has more than 285,714$/,
    maxLines: 1,
  },
  {
    name: 'stage table of 50,000 stages against a design of 4',
    make: measured(
      'calibrate',
      'stages.csv',
      () => `stage,F\n${Array.from({ length: 50_000 }, (_, i) => `${i},1`).join('\n')}\n`,
    ),
    firstLine:
      /^error: .*stages\.csv: row 6, column "stage": the design has no pipeline stage 4 \(no block is tagged PP=4\)$/,
    maxLines: CAPPED,
  },
  ...HUGE_DESIGNS,
];
