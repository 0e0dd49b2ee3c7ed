// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { addDirectiveAction } from '../core/actions.ts';
import { initStore, useStore } from '../store/index.ts';
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
    expect(within(item).getByTestId('directive-error').textContent).toContain('directives[1].filter.PP');
    expect(within(screen.getByTestId('directive-0')).queryByTestId('directive-error')).toBeNull();
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
