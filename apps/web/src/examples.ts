/** The examples gallery: every design in the repository's examples/ folder, bundled at build time. */
import { type Design, parseDesign } from '@stagecraft/ir';

const files = import.meta.glob('../../../examples/*.json', { eager: true, import: 'default' });

export interface Example {
  file: string;
  design: Design;
}

function fileName(path: string): string {
  return path
    .split('/')
    .pop()!
    .replace(/\.json$/, '');
}

function parsedExample(path: string, json: unknown): Example[] {
  const d = parseDesign(json);
  return d.ok ? [{ file: fileName(path), design: d.design }] : [];
}

let parsed: Example[] | undefined;

/**
 * Every example, validated on first use (the gallery): validating all of them as the page starts
 * held its first task 0.1–0.3 s longer, on every page load, for a dialog the user may never open.
 */
export function examples(): Example[] {
  parsed ??= Object.entries(files)
    .flatMap(([path, json]) => parsedExample(path, json))
    .sort((a, b) => a.file.localeCompare(b.file));
  return parsed;
}

export const DEFAULT_EXAMPLE = '1f1b-p4-m8';

/** The design the page starts with: the default example alone is validated for it. */
export function defaultDesign(): Design {
  const entry = Object.entries(files).find(([path]) => fileName(path) === DEFAULT_EXAMPLE);
  const e = entry ? parsedExample(...entry)[0] : examples()[0];
  if (!e) throw new Error('no example design is bundled');
  return e.design;
}
