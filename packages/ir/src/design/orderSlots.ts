/**
 * An `order` directive whose slots are columns: what the `schedule` macro expands into, tens of
 * thousands of one-filter slots per rank. Its `filters` are the plain filter objects any other
 * order has, made from the columns the first time they are read; until then the passes read the
 * columns, and a compile that nobody inspects makes no object per slot.
 *
 * Every filter of such an order names a PP value, a MB index, a PASS and, for bidirectional
 * schedules, a DIR index: `{ PP, MB, PASS }` or `{ PP, DIR, MB, PASS }`, in that key order.
 */

import type { OrderDirective } from './directive.ts';
import { PASS_NAMES, type PassName } from './filter.ts';

export interface OrderSlots {
  /** Filters of slot j: `at[j] .. at[j+1] − 1` (an empty slot is an idle step). */
  readonly at: Int32Array;
  /** Per filter: its PP value, its DIR index (−1: the filter has no DIR key), its MB index. */
  readonly pp: Int32Array;
  readonly dir: Int32Array;
  readonly mb: Int32Array;
  /** Per filter: its PASS, an index into PASS_NAMES. */
  readonly pass: Uint8Array;
}

const SLOTS = Symbol('stagecraft.orderSlots');
type WithSlots = OrderDirective & { [SLOTS]?: OrderSlots };

/** The order directive of these slots. */
export function orderOfSlots(slots: OrderSlots): OrderDirective {
  // One shared getter, added to a fresh object: every such order keeps one hidden class.
  const d = { op: 'order' } as WithSlots;
  Object.defineProperty(d, 'filters', { get: filtersOfSlots, enumerable: true, configurable: true });
  Object.defineProperty(d, SLOTS, { value: slots });
  return d;
}

/**
 * The columns of an order `orderOfSlots` made, while its filters were never read; once they
 * were (and so may have been edited), the filters are what the order says and this is undefined.
 */
export function slotsOf(d: OrderDirective): OrderSlots | undefined {
  const own = (d as WithSlots)[SLOTS];
  return own !== undefined && Object.getOwnPropertyDescriptor(d, 'filters')?.get !== undefined
    ? own
    : undefined;
}

/** The filter of the k-th filter of `slots`, as an object. */
export function slotFilter(
  slots: OrderSlots,
  k: number,
): { PP: number; DIR?: number; MB: number; PASS: PassName } {
  const PASS = PASS_NAMES[slots.pass[k]!]!;
  const dir = slots.dir[k]!;
  return dir >= 0
    ? { PP: slots.pp[k]!, DIR: dir, MB: slots.mb[k]!, PASS }
    : { PP: slots.pp[k]!, MB: slots.mb[k]!, PASS };
}

function filtersOfSlots(this: WithSlots): OrderDirective['filters'] {
  const slots = this[SLOTS]!;
  const { at } = slots;
  const filters = new Array<OrderDirective['filters'][number]>(at.length - 1);
  for (let j = 0; j + 1 < at.length; j++) {
    const row = new Array(at[j + 1]! - at[j]!);
    for (let k = at[j]!; k < at[j + 1]!; k++) row[k - at[j]!] = slotFilter(slots, k);
    filters[j] = row;
  }
  Object.defineProperty(this, 'filters', {
    value: filters,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  return filters;
}
