/** The examples gallery: every design in the repository's examples/ folder, bundled at build time. */
import { type Design, parseDesign } from '@stagecraft/ir';

const files = import.meta.glob('../../../examples/*.json', { eager: true, import: 'default' });

export interface Example {
  file: string;
  design: Design;
}

export const EXAMPLES: Example[] = Object.entries(files)
  .flatMap(([path, json]) => {
    const d = parseDesign(json);
    return d.ok
      ? [
          {
            file: path
              .split('/')
              .pop()!
              .replace(/\.json$/, ''),
            design: d.design,
          },
        ]
      : [];
  })
  .sort((a, b) => a.file.localeCompare(b.file));

export const DEFAULT_EXAMPLE = '1f1b-p4-m8';

export function defaultDesign(): Design {
  const e = EXAMPLES.find((x) => x.file === DEFAULT_EXAMPLE) ?? EXAMPLES[0];
  if (!e) throw new Error('no example design is bundled');
  return e.design;
}
