import { PALETTE_DRAG_TYPE } from '../gantt/index.ts';

/** The payload of a palette drag: the item's key under the type the DAG canvas and the timeline accept. */
export const ITEM_MIME = PALETTE_DRAG_TYPE;

export function itemOf(e: { dataTransfer: DataTransfer | null }): string | null {
  const v = e.dataTransfer?.getData(ITEM_MIME) || e.dataTransfer?.getData('text/plain');
  return v ? v : null;
}

export function carriesItem(e: { dataTransfer: DataTransfer | null }): boolean {
  return !!e.dataTransfer?.types.some((t) => t === ITEM_MIME || t === 'text/plain');
}
