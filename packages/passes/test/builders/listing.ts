import type { Slot } from '../../src/builders/builder.ts';

/** A rank's program as schedules.md lists single-stage ranks: `F0 F1 BI0 BW0 …`. */
export function passListing(program: readonly Slot[]): string {
  return program.map((slot) => slot.map((a) => `${a.pass}${a.mb}`).join('&')).join(' ');
}
