/** Writing a command's result: to the file of -o, or to stdout. */
import { writeFileSync } from 'node:fs';
import { errorLine } from '../format.ts';
import type { Io } from '../io.ts';
import { describeSystemError } from '../systemErrors.ts';

/** Writes `text` to `file` (stdout when undefined); false after reporting why it could not. */
export function writeOutput(text: string, file: string | undefined, io: Io): boolean {
  if (file === undefined) {
    // A failed write to stdout surfaces later, as an event: see standardStreams.ts.
    io.out(text);
    return true;
  }
  try {
    writeFileSync(file, text);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such directory'
        : code === 'EISDIR'
          ? 'is a directory'
          : describeSystemError(e, 'write');
    io.err(errorLine({ path: file, message: reason }));
    return false;
  }
}

/** `--name value` options as node:util's parseArgs returns them. */
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export function stringOption(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** The value of an option that takes one of `choices`, or the usage error. */
export function choiceOption<T extends string>(
  values: OptionValues,
  name: string,
  choices: readonly T[],
): { value?: T } | { error: string } {
  const v = stringOption(values, name);
  if (v === undefined) return {};
  if (!(choices as readonly string[]).includes(v))
    return { error: `--${name}: expected one of ${choices.join(', ')}, got ${JSON.stringify(v)}` };
  return { value: v as T };
}
