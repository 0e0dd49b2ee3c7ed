/**
 * node:util's parseArgs reads `--max-ops -1` as an option without its value followed by an option
 * `-1`, and fails with "argument is ambiguous", which tells the user nothing about -1. No option
 * of Stagecraft's is a digit, so after an option that takes a value, a dash and a digit are that
 * value: joined as `--max-ops=-1`, they reach the option's own check and get its own error.
 */

/** The shape of node:util parseArgs options this needs. */
type OptionShapes = Readonly<
  Record<string, { readonly type: 'string' | 'boolean'; readonly short?: string }>
>;

const NEGATIVE_NUMBER = /^-\d/;

/** `argv` with each `--name -<digit>…` (or `-x -<digit>…`) joined into `--name=-<digit>…`. */
export function joinNegativeValues(argv: readonly string[], options: OptionShapes): string[] {
  const takesValue = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== 'string') continue;
    takesValue.set(`--${name}`, name);
    if (option.short) takesValue.set(`-${option.short}`, name);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = takesValue.get(arg);
    const next = argv[i + 1];
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (name !== undefined && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** parseArgs' "ambiguous" error for a value that starts with a dash, reworded; undefined for others. */
export function describeAmbiguousValue(message: string): string | undefined {
  const m = /^Option '(-[\w-]+)' argument is ambiguous[\s\S]*use '(--[\w-]+)=-XYZ'/.exec(message);
  if (!m) return undefined;
  return `${m[2]}: needs a value (for one starting with "-", write ${m[2]}=<value>)`;
}
