/**
 * The example designs and the reference fixtures (test/fixtures/ at the repository root), read
 * synchronously so that a test file can list a case per example. Node's file system and the
 * examples come from the repository's test reader (test/repoFiles.ts explains why it is loaded
 * the way it is).
 */
import type { Design } from '@stagecraft/ir';
import { fixturesDirectory, nodeFs, exampleDesigns as readExampleDesigns } from '../../../test/repoFiles.ts';

const fs = await nodeFs();
const FIXTURES = await fixturesDirectory();
const EXAMPLES = await readExampleDesigns();

/** Every design in examples/, by file name. */
export function exampleDesigns(): { file: string; design: Design }[] {
  return EXAMPLES;
}

/** A fixture file, e.g. `torch/dualpipev_4rank_10mb.csv`. */
export function readFixture(relativePath: string): string {
  return fs.readFileSync(`${FIXTURES}/${relativePath}`, 'utf8');
}
