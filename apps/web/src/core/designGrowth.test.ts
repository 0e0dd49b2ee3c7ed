import type { Directive } from '@stagecraft/ir';
import { estimatedOps } from '@stagecraft/passes';
import { describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { initStore, useStore } from '../store/index.ts';
import { updateDirectiveAction } from './actions.ts';

const schedule = (microbatches: number): Directive => ({ op: 'schedule', builder: '1f1b', microbatches });

describe('an edit that makes the design 100× larger', () => {
  test('asks first with the estimate, and goes ahead on yes', () => {
    initStore(example('1f1b-p4-m8'));
    const s = () => useStore.getState();
    expect(s().dispatch(updateDirectiveAction, { index: 0, directive: schedule(1000) })).toBe(false);
    const big = { ...s().design, directives: [schedule(1000)] };
    const ratio = Math.round(estimatedOps(big) / estimatedOps(s().design));
    expect(ratio).toBeGreaterThanOrEqual(100);
    expect(s().confirm?.question).toMatchObject({
      title: `Compile a design ${ratio}× larger?`,
      accept: 'Compile it',
    });
    expect(s().confirm?.question.message).toContain(`${estimatedOps(big).toLocaleString('en-US')} ops`);
    expect(s().design.directives[0]).toEqual(schedule(8));
    s().answer(true);
    expect(s().design.directives[0]).toEqual(schedule(1000));
  });

  test('a no keeps the design; a smaller growth does not ask', () => {
    initStore(example('1f1b-p4-m8'));
    const s = () => useStore.getState();
    s().dispatch(updateDirectiveAction, { index: 0, directive: schedule(1000) });
    s().answer(false);
    expect(s().design.directives[0]).toEqual(schedule(8));
    expect(s().dispatch(updateDirectiveAction, { index: 0, directive: schedule(64) })).toBe(true);
    expect(s().confirm).toBeNull();
  });
});
