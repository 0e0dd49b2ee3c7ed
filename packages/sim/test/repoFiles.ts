/**
 * The example designs and the reference fixtures (packages/passes/test/fixtures/), for tests, read synchronously so that a test
 * file can list a case per example. Node's file system and the examples come from the passes
 * package's test reader (packages/* are type-checked without Node's types; it explains how).
 */
import type { Design } from '@stagecraft/ir';
import {
  fixturesDirectory,
  nodeFs,
  exampleDesigns as readExampleDesigns,
} from '../../passes/src/builders/testing/repoFile.ts';

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
