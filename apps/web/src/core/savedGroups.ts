/**
 * The Open dialog's order: each example's working copies under the example, the group where its
 * most recently saved member is (the list comes newest first), so the copy edited last is near
 * the top with the example it came from. A copy whose example is not listed (deleted, or left out
 * by the search) stands alone and still says which example it copies.
 */
export interface Groupable {
  id: string;
  /** The example this design is the working copy of. */
  example?: string | undefined;
}

export interface SavedEntry<T> {
  design: T;
  /** The listed example this design is a working copy of, or null. */
  copyOf: string | null;
}

export function groupCopies<T extends Groupable>(list: readonly T[]): SavedEntry<T>[] {
  const byId = new Map(list.map((d) => [d.id, d]));
  const copies = new Map<string, T[]>();
  for (const d of list)
    if (d.example !== undefined && byId.has(d.example) && d.example !== d.id)
      copies.set(d.example, [...(copies.get(d.example) ?? []), d]);
  const out: SavedEntry<T>[] = [];
  const placed = new Set<string>();
  for (const d of list) {
    const grouped = d.example !== undefined && copies.has(d.example) && d.example !== d.id;
    const head = grouped ? byId.get(d.example!)! : d;
    if (placed.has(head.id)) continue;
    placed.add(head.id);
    out.push({
      design: head,
      copyOf: head.example !== undefined && head.example !== head.id ? head.example : null,
    });
    for (const c of copies.get(head.id) ?? []) out.push({ design: c, copyOf: head.id });
  }
  return out;
}
