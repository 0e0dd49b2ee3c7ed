/**
 * The Open dialog's search: saved designs whose name or id holds every word typed, in any case
 * and order, so "zb h1" finds "ZB-H1, p=4, m=8".
 */
export interface Searchable {
  id: string;
  name: string;
}

export function searchSaved<T extends Searchable>(list: readonly T[], query: string): T[] {
  const words = query
    .toLowerCase()
    .split(/[\s,=]+/)
    .filter(Boolean);
  if (words.length === 0) return [...list];
  return list.filter((d) => {
    const text = `${d.name} ${d.id}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}
