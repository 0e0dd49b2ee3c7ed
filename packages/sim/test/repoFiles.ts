/**
 * The example designs and shared reference files, for tests, read synchronously so that a test
 * file can list a case per example. Node's file system and the repository root come from the
 * passes package's test reader (packages/* are type-checked without Node's types; it explains how).
 */
import { type Design, parseDesignText } from '@stagecraft/ir';
import { nodeFs, repositoryRoot, sharedDirectory } from '../../passes/src/builders/testing/repoFile.ts';

const fs = await nodeFs();
const ROOT = await repositoryRoot();
const SHARED = await sharedDirectory();

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
  return fs.readFileSync(`${SHARED}/${relativePath}`, 'utf8');
}
