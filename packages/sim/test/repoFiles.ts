/**
 * The example designs and shared reference files, for tests. packages/* are type-checked without
 * Node's types (they also run in a browser), so node:fs is loaded through a specifier the type
 * checker does not resolve and typed by the three functions used here.
 */
import { type Design, parseDesignText } from '@stagecraft/ir';

declare global {
  interface ImportMeta {
    readonly url: string;
  }
}

interface NodeFs {
  existsSync(path: string): boolean;
  readFileSync(path: string, encoding: 'utf8'): string;
  readdirSync(path: string): string[];
}

const NODE_FS = 'node:fs';
const fs = (await import(/* @vite-ignore */ NODE_FS)) as NodeFs;

const parent = (dir: string) => dir.slice(0, Math.max(dir.lastIndexOf('/'), 0));

function root(): string {
  let dir = parent(decodeURIComponent(import.meta.url.replace(/^file:\/\//, '')));
  for (; dir !== ''; dir = parent(dir)) if (fs.existsSync(`${dir}/package-lock.json`)) return dir;
  throw new Error('no package-lock.json above the tests');
}

export const ROOT = root();

/** Every design in examples/, by file name. */
export function exampleDesigns(): { file: string; design: Design }[] {
  return fs
    .readdirSync(`${ROOT}/examples`)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const r = parseDesignText(fs.readFileSync(`${ROOT}/examples/${file}`, 'utf8'));
      if (!r.ok) throw new Error(`${file}: ${JSON.stringify(r.errors)}`);
      return { file, design: r.design };
    });
}

/** A file under shared/ beside the repository, e.g. `reference/torch/dualpipev_4rank_10mb.csv`. */
export function readShared(relativePath: string): string {
  return fs.readFileSync(`${parent(ROOT)}/shared/${relativePath}`, 'utf8');
}
