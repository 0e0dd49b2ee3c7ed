/** The payload of a palette drag: the item's key under our own MIME type. */
export const ITEM_MIME = 'application/x-stagecraft-item';

export function itemOf(e: { dataTransfer: DataTransfer | null }): string | null {
  const v = e.dataTransfer?.getData(ITEM_MIME) || e.dataTransfer?.getData('text/plain');
  return v ? v : null;
}

export function carriesItem(e: { dataTransfer: DataTransfer | null }): boolean {
  return !!e.dataTransfer?.types.some((t) => t === ITEM_MIME || t === 'text/plain');
}
