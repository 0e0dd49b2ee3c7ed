// @vitest-environment happy-dom

import type { Directive } from '@stagecraft/ir';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { addDirectiveAction, undoAction } from '../core/actions.ts';
import { initStore, useStore } from '../store/index.ts';
import { performSession } from '../store/session.ts';
import { ProgramList } from './ProgramList.tsx';

afterEach(cleanup);

describe('<ProgramList>', () => {
  beforeEach(() => {
    initStore(example('1f1b-p4-m8'));
    useStore
      .getState()
      .dispatch(addDirectiveAction, { directive: { op: 'split_backward', filter: { PP: 9 } } });
  });

  test('an error shows at the directive its path names', () => {
    useStore.setState({
      errors: [{ path: 'directives[1].filter.PP', message: 'no block has tag PP=9 (PP takes 0..3)' }],
      status: 'error',
    });
    render(<ProgramList />);
    const item = screen.getByTestId('directive-1');
    const error = within(item).getByTestId('directive-error');
    expect(error.textContent).toContain('directives[1].filter.PP');
    // Folded under the schedule, the error is the split_backward's, not the schedule's.
    expect(within(screen.getByTestId('directive-0')).getAllByTestId('directive-error')).toEqual([error]);
    expect(error.closest('li')).toBe(item);
  });

  test('toggle and delete act on their directive', () => {
    render(<ProgramList />);
    fireEvent.click(screen.getByTestId('directive-toggle-1'));
    expect(useStore.getState().design.directives[1]!.enabled).toBe(false);
    fireEvent.click(screen.getByTestId('directive-delete-0'));
    expect(useStore.getState().design.directives.map((d) => d.op)).toEqual(['split_backward']);
  });

  test('an error the edit of a directive caused elsewhere also shows at the edited directive', () => {
    const edited = useStore.getState().design.directives[1]!;
    useStore.setState({
      errors: [{ path: 'directives[0].expansion[7].filters[2][0]', message: 'matches no op' }],
      suspects: [edited],
      status: 'error',
    });
    render(<ProgramList />);
    const item = screen.getByTestId('directive-1');
    expect(item.className).toContain('has-error');
    expect(within(item).getByTestId('directive-cause').textContent).toBe(
      'after this edit: directives[0].expansion[7].filters[2][0] matches no op',
    );
    // Where the compiler found it, it shows as well.
    expect(within(screen.getByTestId('directive-0')).getByTestId('directive-error')).toBeTruthy();
  });
});

describe('<ProgramList> folds what the user changed of a schedule beneath it', () => {
  const move = {
    kind: 'move' as const,
    op: { PP: 3, MB: 1, PASS: 'F' as const },
    before: { PP: 3, MB: 0, PASS: 'F' as const },
  };
  beforeEach(() => {
    const design = example('1f1b-p4-m8');
    initStore({
      ...design,
      directives: [
        { ...design.directives[0]!, edits: [move] } as Directive,
        { op: 'split_backward', filter: { PP: 1 } },
        { op: 'recompute', filter: { PP: 0 } },
      ],
    });
  });

  test('one line names every edit, and the list shows the schedule as one item until opened', () => {
    render(<ProgramList />);
    const list = screen.getByTestId('program-list');
    expect(within(list).getByTestId('schedule-fold-0').textContent).toContain(
      '2 edits: split backward PP=1, move 3F1 before 3F0',
    );
    expect(screen.queryByTestId('directive-1')).toBeNull();
    expect(screen.getByTestId('directive-2').dataset.op).toBe('recompute');
    fireEvent.click(screen.getByTestId('fold-toggle-0'));
    expect(within(screen.getByTestId('directive-0')).getByTestId('directive-1').dataset.op).toBe(
      'split_backward',
    );
    expect(screen.getByTestId('schedule-edit-0-0').textContent).toContain('move3F1 before 3F0');
  });

  test('selecting a folded split_backward opens the fold', () => {
    useStore.getState().select(1);
    render(<ProgramList />);
    expect(screen.getByTestId('fold-toggle-0').getAttribute('aria-expanded')).toBe('true');
  });

  test('an edit’s ✕ removes it, and undo brings it back', () => {
    render(<ProgramList />);
    fireEvent.click(screen.getByTestId('fold-toggle-0'));
    fireEvent.click(screen.getByTestId('schedule-edit-delete-0-0'));
    expect(useStore.getState().design.directives[0]).not.toHaveProperty('edits');
    performSession(undoAction);
    expect(useStore.getState().design.directives[0]).toMatchObject({ edits: [move] });
  });

  test('an error at an edit shows at that edit, and under the closed fold', () => {
    useStore.setState({
      errors: [{ path: 'directives[0].edits[0].before', message: '3F1 runs on rank 3 and 2F0 on rank 2' }],
      status: 'error',
    });
    render(<ProgramList />);
    const fold = screen.getByTestId('schedule-fold-0');
    expect(within(fold).getByTestId('directive-error').textContent).toContain(
      'directives[0].edits[0].before',
    );
    expect(screen.getByTestId('directive-0').className).toContain('has-error');
    fireEvent.click(screen.getByTestId('fold-toggle-0'));
    expect(within(screen.getByTestId('schedule-edit-0-0')).getByTestId('directive-error')).toBeTruthy();
  });
});
