/**
 * What ties a compiled plan to the layout validation proved on its columns, as a field a reader
 * can see: `plan.compiled` (non-enumerable, so JSON, spreads and structured clones leave it
 * behind: a copy of a plan is read from its objects). The plan's lowered streams hold the same
 * object and tell it when their instructions are first read or replaced (lazyStream.ts):
 * from then on the caller may edit instruction objects in place, which the layout would not
 * see, so it is dropped, and the plan is read from its objects like any loaded plan.
 */

import { loweredStreamOf } from './lazyStream.ts';
import type { Plan } from './plan.ts';
import type { PlanLayout } from './planLayout.ts';

export class CompiledLayout {
  private proven: PlanLayout | undefined = undefined;
  private read = false;

  /** Keeps the layout validation proved, unless a stream was read before. */
  prove(layout: PlanLayout): void {
    if (!this.read) this.proven = layout;
  }

  /** A lowered stream's instructions were read or replaced: the layout may no longer say what they say. */
  streamRead(): void {
    this.read = true;
    this.proven = undefined;
  }

  get layout(): PlanLayout | undefined {
    return this.proven;
  }
}

/** Makes `compiled` the plan's (lowering does, before any stream can be read). */
export function attachCompiledLayout(plan: Plan, compiled: CompiledLayout): void {
  Object.defineProperty(plan, 'compiled', { value: compiled, enumerable: false });
}

/**
 * The proven layout of this plan, or undefined: for a plan nobody compiled, a stream read or
 * replaced, or devices and streams that are no longer the lowered ones (the plan's arrays are
 * plain fields anyone may change).
 */
export function compiledLayoutOf(plan: Plan): PlanLayout | undefined {
  const compiled = plan.compiled;
  const layout = compiled?.layout;
  if (layout === undefined || layout.plan !== plan || plan.devices.length !== layout.D) return undefined;
  const { deviceStreams } = layout;
  for (let d = 0; d < layout.D; d++) {
    const streams = plan.devices[d]!.streams;
    if (streams.length !== deviceStreams[d + 1]! - deviceStreams[d]!) return undefined;
    for (let k = 0; k < streams.length; k++)
      if (loweredStreamOf(streams[k]!)?.compiled !== compiled) return undefined;
  }
  return layout;
}
