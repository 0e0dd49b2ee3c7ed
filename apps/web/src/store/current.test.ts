import { describe, expect, test } from 'vitest';
import { compiledOfResult, currentResult } from './current.ts';

const result = { program: [] } as never;
const dag = { nodes: [] } as never;
const plan = { devices: [] } as never;

describe('which result belongs to the current design', () => {
  test('a result is current only for the revision it was computed from', () => {
    expect(currentResult({ result, resultRevision: 3, revision: 3 })).toBe(result);
    expect(currentResult({ result, resultRevision: 3, revision: 4 })).toBeNull();
    expect(currentResult({ result: null, resultRevision: -1, revision: 0 })).toBeNull();
  });

  test('the DAG and whole plan count only once they arrive for the result on screen', () => {
    expect(compiledOfResult({ dag, plan, dagRevision: 3, resultRevision: 3 })).toEqual({ dag, plan });
    expect(compiledOfResult({ dag, plan, dagRevision: 2, resultRevision: 3 })).toBeNull();
    expect(compiledOfResult({ dag: null, plan: null, dagRevision: -1, resultRevision: 3 })).toBeNull();
  });
});
