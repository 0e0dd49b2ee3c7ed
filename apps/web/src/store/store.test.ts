import { beforeEach, describe, expect, test } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { example } from '../../test/testDesigns.ts';
import {
  addDirectiveAction,
  deleteDirectiveAction,
  dropItemAction,
  openDesignAction,
  pinAction,
  redoAction,
  switchBuilderAction,
  toggleDirectiveAction,
  undoAction,
  updateDirectiveAction,
} from '../core/actions.ts';
import { causedErrors } from '../core/errorCause.ts';
import { removePinAction, renamePinAction, setBaselineAction } from '../core/pins.ts';
import { moveOp } from '../core/reorder.ts';
import { createAppStore } from './appStore.ts';
import { initStore, MAX_PINS, useStore } from './index.ts';
import { useMeasured } from './measured.ts';
import { performSession } from './session.ts';

describe('the store commands', () => {
  beforeEach(() => initStore(example('1f1b-p4-m8')));

  test('every dispatched edit is undone and redone in order', () => {
    const s = () => useStore.getState();
    s().dispatch(addDirectiveAction, { directive: { op: 'recompute', filter: { PP: 1 } } });
    s().dispatch(toggleDirectiveAction, { index: 1 });
    s().dispatch(deleteDirectiveAction, { index: 0 });
    expect(s().design.directives).toEqual([{ op: 'recompute', filter: { PP: 1 }, enabled: false }]);
    performSession(undoAction);
    performSession(undoAction);
    expect(s().design.directives.map((d) => d.op)).toEqual(['schedule', 'recompute']);
    expect(s().design.directives[1]!.enabled).toBeUndefined();
    performSession(redoAction);
    expect(s().design.directives[1]!.enabled).toBe(false);
    expect(s().history.future).toHaveLength(1);
  });

  test('an edit bumps the revision and marks the design for saving', () => {
    const before = useStore.getState().revision;
    useStore.getState().dispatch(addDirectiveAction, { directive: { op: 'recompute', filter: {} } });
    expect(useStore.getState().revision).toBe(before + 1);
    expect(useStore.getState().saveStatus).toBe('dirty');
    expect(useStore.getState().selectedDirective).toBe(1);
  });

  test('a refused action changes nothing and says why', () => {
    const design = useStore.getState().design;
    const refused = useStore
      .getState()
      .dispatch(
        { name: 'refuse', history: 'record', perform: () => ({ ok: false, error: 'not on this device' }) },
        {},
      );
    expect(refused).toBe(false);
    expect(useStore.getState().notice).toEqual({ kind: 'error', text: 'not on this device' });
    expect(useStore.getState().design).toBe(design);
    expect(useStore.getState().history.past).toHaveLength(0);
  });

  test('only a design with a result can be pinned, and at most four', () => {
    performSession(pinAction);
    expect(useStore.getState().pins).toHaveLength(0);
    expect(useStore.getState().notice?.text).toMatch(/compiles/);
    expect(MAX_PINS).toBe(4);
  });

  test('pins are renamed, one is chosen as the baseline, and unpinning it falls back to the first', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const result = { simulation: sim, plan } as unknown as NonNullable<
      ReturnType<typeof useStore.getState>['result']
    >;
    const design = useStore.getState().design;
    useStore.setState({
      pins: ['a', 'b', 'c'].map((id) => ({ id, name: id, design, result })),
    });
    const s = () => useStore.getState();
    s().dispatchPins(renamePinAction, { id: 'b', name: '  ZB-H1 mine  ' });
    expect(s().pins.map((p) => p.name)).toEqual(['a', 'ZB-H1 mine', 'c']);
    expect(s().dispatchPins(renamePinAction, { id: 'b', name: '   ' })).toBe(false);
    expect(s().pins[1]!.name).toBe('ZB-H1 mine');
    expect(s().notice).toEqual({ kind: 'error', text: 'a pin needs a name' });
    s().dispatchPins(setBaselineAction, { id: 'c' });
    expect(s().baseline).toBe('c');
    s().dispatchPins(setBaselineAction, { id: 'nope' });
    expect(s().baseline).toBe('c');
    s().dispatchPins(removePinAction, { id: 'a' });
    expect(s().baseline).toBe('c');
    s().dispatchPins(removePinAction, { id: 'c' });
    expect(s().baseline).toBeNull();
    expect(s().pins.map((p) => p.id)).toEqual(['b']);
  });

  test('two stores share nothing: each has its own design, pins and worker', () => {
    const sent: string[][] = [[], []];
    const [a, b] = sent.map((log) =>
      createAppStore(example('1f1b-p4-m8'), () => ({ send: (r) => log.push(r.type) })),
    );
    a!.getState().dispatch(openDesignAction, { design: example('gpipe-p4-m8') });
    expect(b!.getState().design).toEqual(example('1f1b-p4-m8'));
    expect(sent).toEqual([['compute'], []]);
    b!.getState().wantCompiled();
    expect(sent[1]).toEqual([]);
  });

  test('opening another document bumps the document counter; an edit does not', () => {
    const s = () => useStore.getState();
    const before = s().document;
    s().dispatch(addDirectiveAction, { directive: { op: 'recompute', filter: { PP: 1 } } });
    expect(s().document).toBe(before);
    s().dispatch(openDesignAction, { design: example('gpipe-p4-m8') });
    expect(s().document).toBe(before + 1);
  });

  test("opening another document drops the previous one's op in Details, its target and its measured traces", () => {
    const s = () => useStore.getState();
    const node = { firstId: 'F.b0.mb0' } as never;
    s().hover(node);
    s().setTarget({ id: 'F.b0.mb0', tags: { PP: 0 }, devices: [0] });
    const overlay = { ok: true, files: ['trace.json'] } as never;
    useMeasured.setState({
      files: [{ name: 'trace.json', text: '{}' }],
      overlay,
      comparedWith: s().design,
      status: 'ok',
    });
    // An edit keeps them: the traces are compared again with the edited design.
    s().dispatch(addDirectiveAction, { directive: { op: 'recompute', filter: { PP: 1 } } });
    expect(s().hovered).toBe(node);
    expect(useMeasured.getState().files.length).toBe(1);
    s().dispatch(openDesignAction, { design: example('gpipe-p4-m8') });
    expect(s().hovered).toBeNull();
    expect(s().target).toBeNull();
    expect(useMeasured.getState()).toMatchObject({
      files: [],
      overlay: null,
      comparedWith: null,
      status: 'none',
    });
  });

  test('an edit that adapts other directives leaves a notice naming them until the next edit', () => {
    const s = () => useStore.getState();
    s().dispatch(addDirectiveAction, { directive: { op: 'recompute', filter: { PP: 1 } } });
    s().dispatch(switchBuilderAction, { builder: 'dualpipev' });
    expect(s().notice).toEqual({
      kind: 'warning',
      text: expect.stringContaining('recompute PP=1 → PP=2, PP=3'),
    });
    s().dispatch(toggleDirectiveAction, { index: 1 });
    expect(s().notice).toBeNull();
  });

  test('a switch that would drop hand reorders waits for the user, and cancelling keeps the design', () => {
    const r = runExample('1f1b-p4-m8');
    const moved = moveOp(r.design, r.compiled, { op: 'F.b3.mb1', target: 'F.b3.mb0', position: 'before' });
    if (!moved.ok) throw new Error(moved.reason);
    initStore(moved.design);
    const s = () => useStore.getState();
    expect(s().dispatch(switchBuilderAction, { builder: 'zb-h1' })).toBe(false);
    expect(s().confirm?.question.items).toEqual(['directives[0].edits[0]: move 3F1 before 3F0']);
    expect(s().notice).toBeNull();
    s().answer(false);
    expect(s().confirm).toBeNull();
    expect(s().design).toBe(moved.design);
    s().dispatch(switchBuilderAction, { builder: 'zb-h1' });
    s().answer(true);
    expect(s().design.directives).toEqual([{ op: 'schedule', builder: 'zb-h1', microbatches: 8 }]);
    expect(s().history.past).toEqual([moved.design]);
    expect(s().notice?.text).toContain("dropped the schedule's 1 hand edit");
  });

  test('the directive an edit touched is blamed for the errors the compile then reports elsewhere', () => {
    const s = () => useStore.getState();
    s().dispatch(addDirectiveAction, { directive: { op: 'split_backward', filter: { PP: 1 } } });
    s().dispatch(updateDirectiveAction, { index: 1, directive: { op: 'split_backward', filter: { PP: 0 } } });
    const edited = s().design.directives[1]!;
    expect(s().suspects.at(-1)).toBe(edited);
    const errors = [{ path: 'directives[0].expansion[5].filters[4][0]', message: 'matches no op' }];
    useStore.receive({
      type: 'computed',
      revision: s().revision,
      result: { ok: false, errors },
      workerMs: 1,
    });
    expect(causedErrors(s().errors, s().design, s().suspects).get(1)).toEqual(errors);
    // Another document has no edits to blame.
    s().dispatch(openDesignAction, { design: example('gpipe-p4-m8') });
    expect(s().suspects).toEqual([]);
  });

  test('a yes to a question about a design that changed meanwhile asks again instead', () => {
    const r = runExample('1f1b-p4-m8');
    const moved = moveOp(r.design, r.compiled, { op: 'F.b3.mb1', target: 'F.b3.mb0', position: 'before' });
    if (!moved.ok) throw new Error(moved.reason);
    initStore(moved.design);
    const s = () => useStore.getState();
    s().dispatch(switchBuilderAction, { builder: 'zb-h1' });
    s().dispatch(addDirectiveAction, { directive: { op: 'recompute', filter: { PP: 0 } } });
    const changed = s().design;
    s().answer(true);
    expect(s().design).toBe(changed);
    expect(s().confirm?.question.title).toBe('Switch to zb-h1?');
  });

  test('a drop that asks which mesh axis adds the directive over the axis the user picks', () => {
    const s = () => useStore.getState();
    const target = {
      id: 'F.b1.mb0',
      tags: { PP: 1, MB: 0, PASS: 'F' },
      devices: [4, 5, 6, 7],
      mesh: { axes: ['dp', 'tp'], shape: [2, 2] },
    };
    const before = s().design;
    expect(s().dispatch(dropItemAction, { item: 'shard_tensor', target, program: [] })).toBe(false);
    expect(s().confirm?.question.choices?.map((c) => c.value)).toEqual(['dp', 'tp', '']);
    s().answer(false);
    expect(s().design).toBe(before);
    s().dispatch(dropItemAction, { item: 'shard_tensor', target, program: [] });
    s().answer(true, 'tp');
    expect(s().confirm).toBeNull();
    expect(s().design.directives.at(-1)).toEqual({
      op: 'shard_tensor',
      filter: { PP: 1 },
      devices: [4, 5, 6, 7],
      axis: 'tp',
    });
  });
});
