/** What the page does with a palette item on a target: the same action for a drop, a click and a test. */
import { dropItemAction, switchBuilderAction } from '../core/actions.ts';
import type { DropTarget } from '../core/dropTarget.ts';
import { itemRefusal } from '../core/itemApplies.ts';
import { DIRECTIVE_ITEMS, type DirectiveItem, isBuilder } from '../core/palette.ts';
import { compiledOfResult, currentResult } from '../store/current.ts';
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
  const refusal = targetRefusal(item, target);
  if (refusal) {
    s.notify('warning', refusal);
    return false;
  }
  // The expansion of a schedule is only trusted for the design it was computed from.
  const program = currentResult(s)?.program ?? [];
  return s.dispatch(dropItemAction, { item: item as DirectiveItem, target, program });
}

/** Why an item cannot apply to a target of the compiled design on screen, or null (see itemApplies.ts). */
export function targetRefusal(item: string, target: DropTarget | null): string | null {
  const dag = compiledOfResult(useStore.getState())?.dag;
  return target && dag ? itemRefusal(item, dag, target.id) : null;
}
