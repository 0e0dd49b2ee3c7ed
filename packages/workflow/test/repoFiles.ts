/**
 * The example designs and shared reference files, for tests, read synchronously so that a test
 * file can list a case per example. Node's file system and the examples come from the passes
 * package's test reader (packages/* are type-checked without Node's types; it explains how).
 */
import type { Design } from '@stagecraft/ir';
import {
  nodeFs,
  exampleDesigns as readExampleDesigns,
  sharedDirectory,
} from '../../passes/src/builders/testing/repoFile.ts';

const fs = await nodeFs();
const SHARED = await sharedDirectory();
const EXAMPLES = await readExampleDesigns();

/** Every design in examples/, by file name. */
export function exampleDesigns(): { file: string; design: Design }[] {
  return EXAMPLES;
}

/** A file under shared/ beside the repository, e.g. `reference/torch/dualpipev_4rank_10mb.csv`. */
export function readShared(relativePath: string): string {
  return fs.readFileSync(`${SHARED}/${relativePath}`, 'utf8');
}
