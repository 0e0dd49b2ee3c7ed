/** What the page does with a palette item on a target: the same action for a drop, a click and a test. */
import { dropItemAction, switchBuilderAction } from '../core/actions.ts';
import type { DropTarget } from '../core/dropTarget.ts';
import { DIRECTIVE_ITEMS, type DirectiveItem, isBuilder } from '../core/palette.ts';
import { currentResult } from '../store/current.ts';
import { useStore } from '../store/index.ts';

export function applyItem(item: string, target: DropTarget | null): boolean {
  const s = useStore.getState();
  if (isBuilder(item)) return s.dispatch(switchBuilderAction, { builder: item });
  if (!DIRECTIVE_ITEMS.some((d) => d.key === item)) return false;
  if (!target) {
    s.notify(
      'info',
      'drop the directive on a DAG node or a timeline op (or select a node, then click the item)',
    );
    return false;
  }
  // The expansion of a schedule is only trusted for the design it was computed from.
  const program = currentResult(s)?.program ?? [];
  return s.dispatch(dropItemAction, { item: item as DirectiveItem, target, program });
}
