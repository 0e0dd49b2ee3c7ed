/**
 * Reads the repository's own files for tests: the examples and the reference fixtures under
 * test/fixtures/. The repository root is the nearest directory above this file
 * holding package-lock.json; nothing outside it is read, so a fresh clone passes its tests.
 *
 * packages/* are type-checked without Node's types because they must also run in a browser. These
 * tests run under Vitest in Node, so they load node:fs through a specifier the type checker does
 * not resolve and type it by the three functions they use, instead of adding Node's types (and with
 * them every Node API) to the whole package.
 */

import { type Design, parseDesignText } from '@stagecraft/ir';

declare global {
  // Standard in browsers and Node alike; ES2023's lib leaves ImportMeta empty.
  interface ImportMeta {
    readonly url: string;
  }
}

export interface NodeFs {
  existsSync(path: string): boolean;
  readFileSync(path: string, encoding: 'utf8'): string;
  readdirSync(path: string): string[];
  statSync(path: string): { isDirectory(): boolean };
}

const NODE_FS = 'node:fs';

export async function nodeFs(): Promise<NodeFs> {
  return (await import(/* @vite-ignore */ NODE_FS)) as NodeFs;
}

const parent = (dir: string) => dir.slice(0, Math.max(dir.lastIndexOf('/'), 0));

function ownDirectory(): string {
  const path = decodeURIComponent(import.meta.url.replace(/^file:\/\//, ''));
  // file:///C:/x on Windows leaves /C:/x; drop the slash before a drive letter.
  return parent(/^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path);
}

export async function repositoryRoot(): Promise<string> {
  const fs = await nodeFs();
  for (let dir = ownDirectory(); dir !== ''; dir = parent(dir)) {
    if (fs.existsSync(`${dir}/package-lock.json`)) return dir;
  }
  throw new Error(`no package-lock.json above ${ownDirectory()}`);
}

/** The fixtures directory, test/fixtures/ (its README names each file's source). */
export async function fixturesDirectory(): Promise<string> {
  return `${await repositoryRoot()}/test/fixtures`;
}

/** A fixture file, e.g. `torch/dualpipev_4rank_10mb.csv`. */
export async function readFixture(relativePath: string): Promise<string> {
  const fs = await nodeFs();
  return fs.readFileSync(`${await fixturesDirectory()}/${relativePath}`, 'utf8');
}

/** Every design in examples/, by file name. */
export async function exampleDesigns(): Promise<{ file: string; design: Design }[]> {
  const fs = await nodeFs();
  const root = await repositoryRoot();
  return fs
    .readdirSync(`${root}/examples`)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const r = parseDesignText(fs.readFileSync(`${root}/examples/${file}`, 'utf8'));
      if (!r.ok) throw new Error(`${file}: ${JSON.stringify(r.errors)}`);
      return { file, design: r.design };
    });
}

/** PyTorch's ScheduleInterleaved1F1B orders in fixtures/torch/, 4 ranks: file, microbatches, stages per rank. */
export const TORCH_INTERLEAVED_ORDERS = [
  ['interleaved1f1b_4rank_2stagep_5mb.csv', 5, 2],
  ['interleaved1f1b_4rank_2stagep_6mb.csv', 6, 2],
  ['interleaved1f1b_4rank_2stagep_7mb.csv', 7, 2],
  ['interleaved1f1b_4rank_1stagep_4mb.csv', 4, 1],
  ['interleaved1f1b_4rank_1stagep_6mb.csv', 6, 1],
  ['interleaved1f1b_4rank_1stagep_8mb.csv', 8, 1],
] as const;
