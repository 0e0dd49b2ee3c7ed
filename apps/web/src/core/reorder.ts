/**
 * Reordering on the timeline: moving op X before or after op Y on the same device is an edit of
 * that device group's order. On an explicit `order` directive the slots are moved in place; on the
 * order a `schedule` expands into, the move is kept as an edit of the schedule (scheduleEdits.ts),
 * so the program still reads as that schedule. Orders are read as they run (a split backward as
 * its BI and BW slots), so either half moves on its own. The move is refused, in words naming
 * which op must come before which, when it would break a dependency; otherwise the edited design
 * is compiled and simulated once more to prove it still runs.
 *
 * Pure and React-free: it runs in the compile worker as well as on the main thread.
 */
import {
  type Dag,
  type Design,
  EDGE_TEMPORAL,
  type Filter,
  formatPath,
  type Instruction,
  nodeTags,
  type OrderDirective,
  type Plan,
  type ScheduleEdit,
} from '@stagecraft/ir';
import { type CompileResult, NodeIndex } from '@stagecraft/passes';
import { runDesign, simulateRun } from '@stagecraft/workflow';
import { runningSlots, scheduleOpOf, splitRegions, withScheduleEdit } from './scheduleEdits.ts';

/** Move the op `op` (an instruction id, or an overlapped unit's id) just before or after `target`. */
export interface OpMove {
  op: string;
  target: string;
  position: 'before' | 'after';
}

/** `design` is the caller's own object when the op already sits there (nothing to record). */
export type MoveResult = { ok: true; design: Design } | { ok: false; reason: string };

/** What moveOp reads from the last successful compile of `design` (a compile result fits as is). */
export type CompiledDesign = Pick<Extract<CompileResult, { ok: true }>, 'plan' | 'dag' | 'program'>;

const ORDERABLE = new Set(['F', 'B', 'BI', 'BW', 'OVERLAP']);

interface Located {
  device: number;
  instruction: Instruction;
  /** Ids of the DAG nodes the instruction stands for (the members of an overlapped unit). */
  nodeIds: string[];
}

interface SlotRef {
  /** Index into the expanded program. */
  entry: number;
  slot: number;
}

/** The order a move edits, its slots' nodes, X's and Y's slots, and the design with the slots reordered. */
interface OrderToEdit {
  order: OrderDirective;
  slotNodes: number[][];
  slotX: number;
  slotY: number;
  edit: (moved: number[]) => Design;
}

/** The two ops of a move as the compiled DAG knows them. */
interface MovedOps {
  design: Design;
  compiled: CompiledDesign;
  move: OpMove;
  device: number;
  /** DAG nodes of the moved op (X) and of the target (Y). */
  xs: number[];
  ys: number[];
}

type Refusal = Extract<MoveResult, { ok: false }>;

export function moveOp(design: Design, compiled: CompiledDesign, move: OpMove): MoveResult {
  const ops = movedOps(design, compiled, move);
  if ('ok' in ops) return ops;
  const target = orderToEdit(ops);
  if ('ok' in target) return target;
  const { order, slotNodes, slotX, slotY, edit } = target;
  const { dag } = compiled;
  if (slotX === slotY) return refuse(`${move.op} and ${move.target} run in the same slot, overlapped`);
  const strays = slotNodes[slotX]!.filter((n) => !sameUnit(dag, n, ops.xs));
  if (strays.length > 0) {
    return refuse(
      `${move.op} shares its slot with ${strays.map((n) => dag.nodes[n]!.id).join(', ')}; split that slot's filter to move it alone`,
    );
  }

  // Slots in their new order: X's slot taken out, then put beside Y's.
  const rest = order.filters.map((_, i) => i).filter((i) => i !== slotX);
  const at = rest.indexOf(slotY) + (move.position === 'after' ? 1 : 0);
  const moved = [...rest.slice(0, at), slotX, ...rest.slice(at)];
  const newAt = moved.indexOf(slotX);
  // Already there: nothing to edit (the same design object tells the caller so).
  if (newAt === slotX) return { ok: true, design };
  const crossed = newAt < slotX ? moved.slice(newAt + 1, slotX + 1) : moved.slice(slotX, newAt);
  const broken = brokenDependency(
    dag,
    move.op,
    ops.xs,
    crossed.flatMap((s) => slotNodes[s]!),
    newAt < slotX,
  );
  if (broken) return broken;
  return proveRuns(edit(moved));
}

/** Both ops located on one device of the plan, each an op an order places, with their DAG nodes. */
function movedOps(design: Design, compiled: CompiledDesign, move: OpMove): MovedOps | Refusal {
  const { plan, dag } = compiled;
  if (move.op === move.target) return refuse(`${move.op} cannot move relative to itself`);
  const where = locate(plan);
  const a = where.get(move.op);
  const b = where.get(move.target);
  if (!a) return refuse(`${move.op} is not an op of the compiled plan`);
  if (!b) return refuse(`${move.target} is not an op of the compiled plan`);
  for (const [id, l] of [
    [move.op, a],
    [move.target, b],
  ] as const) {
    if (!ORDERABLE.has(l.instruction.op)) {
      return refuse(
        `${id} is a ${l.instruction.op}: only F, B, BI and BW ops are ordered; the compiler places communication around them`,
      );
    }
  }
  if (a.device !== b.device) {
    return refuse(
      `${move.op} runs on device ${a.device} and ${move.target} on device ${b.device}: an op only moves within its own device's order`,
    );
  }
  const nodeIndex = new Map<string, number>();
  dag.nodes.forEach((n, i) => {
    nodeIndex.set(n.id, i);
  });
  const nodesOf = (l: Located) => l.nodeIds.map((id) => nodeIndex.get(id)).filter((n) => n !== undefined);
  const xs = nodesOf(a);
  const ys = nodesOf(b);
  if (xs.length === 0 || ys.length === 0) return refuse(`${move.op} has no op in the compiled DAG`);
  return { design, compiled, move, device: a.device, xs, ys };
}

/** The order both ops sit in (the program's, or one started from the compiled plan), and how to edit it. */
function orderToEdit(ops: MovedOps): OrderToEdit | Refusal {
  const { design, compiled, move, device, xs, ys } = ops;
  const { dag, program } = compiled;
  const running = runningOrders(design, program);
  const slotOf = orderSlots(dag, program, running);
  const sx = slotOf.get(xs[0]!);
  const sy = slotOf.get(ys[0]!);
  if (sx === undefined && sy === undefined) {
    // No order on this device yet: start one from the order the compiler chose.
    const group = dag.nodes[xs[0]!]!.group;
    if ([...slotOf.keys()].some((n) => dag.nodes[n]!.group === group)) {
      return refuse(
        `neither ${move.op} nor ${move.target} is in device ${device}'s order; add them to it first`,
      );
    }
    return startedOrder(ops);
  }
  if (sx === undefined || sy === undefined) {
    const [free, ordered] = sx === undefined ? [move.op, sy!] : [move.target, sx];
    return refuse(
      `${free} is not in the order ${formatPath(program[ordered.entry]!.path)} of device ${device}; add it to that order first`,
    );
  }
  if (sx.entry !== sy.entry) {
    return refuse(
      `${move.op} is ordered by ${formatPath(program[sx.entry]!.path)} and ${move.target} by ${formatPath(program[sy.entry]!.path)}; an op moves within one order`,
    );
  }
  const entry = program[sx.entry]!;
  const order: OrderDirective = { op: 'order', filters: running.get(sx.entry)!.map((slot) => slot.slice()) };
  const index = new NodeIndex(dag);
  const slotNodes = order.filters.map((slot) => slot.flatMap((f) => index.match(f, [])));
  const at = entry.path[1] as number;
  const slots = order.filters;
  const found = { order, slotNodes, slotX: sx.slot, slotY: sy.slot };
  if (entry.path.length > 2) {
    // The order of a schedule: the move is an edit of the schedule, naming the two ops.
    const op = scheduleOpOf(nodeTags(dag, dag.nodes[xs[0]!]!));
    const target = scheduleOpOf(nodeTags(dag, dag.nodes[ys[0]!]!));
    if (!op || !target) return refuse(`${move.op} is not an op a schedule orders`);
    const next = withScheduleEdit(design, at, {
      kind: 'move',
      op,
      [move.position]: target,
    } as ScheduleEdit);
    if (!next) return refuse(`directives[${at}] is no longer the schedule that orders ${move.op}`);
    return { ...found, edit: () => next };
  }
  const written = design.directives[at] as OrderDirective;
  return {
    ...found,
    edit: (moved) => ({
      ...design,
      directives: design.directives.with(at, { ...written, filters: moved.map((s) => slots[s]!) }),
    }),
  };
}

/** An order for the device from the plan as compiled, added to the design as a new directive. */
function startedOrder({ design, compiled, move, device, xs, ys }: MovedOps): OrderToEdit | Refusal {
  const { dag, plan } = compiled;
  const order = orderFromPlan(plan, device);
  const index = new NodeIndex(dag);
  const slotNodes = order.filters.map((slot) => slot.flatMap((f) => index.match(f, [])));
  const slotX = slotNodes.findIndex((s) => s.includes(xs[0]!));
  const slotY = slotNodes.findIndex((s) => s.includes(ys[0]!));
  if (slotX < 0 || slotY < 0) return refuse(`${move.op} cannot be ordered by its tags alone`);
  return {
    order,
    slotNodes,
    slotX,
    slotY,
    edit: (moved) => ({
      ...design,
      directives: [...design.directives, { ...order, filters: moved.map((s) => order.filters[s]!) }],
    }),
  };
}

/**
 * The refusal when X (`xs`, named `xName`) would cross an op it depends on (moving earlier) or one
 * that depends on it (moving later), naming the chain between them; null when it crosses neither.
 */
function brokenDependency(
  dag: Dag,
  xName: string,
  xs: number[],
  crossedNodes: number[],
  earlier: boolean,
): Refusal | null {
  if (earlier) {
    // X now runs before the crossed slots: none of them may be something X needs.
    const chain = firstReached(dag, xs, crossedNodes, 'ancestors');
    if (!chain) return null;
    const z = dag.nodes[chain[0]!]!.id;
    return refuse(`${xName} must come after ${z}, which it depends on: ${describeChain(dag, chain)}`);
  }
  const chain = firstReached(dag, xs, crossedNodes, 'descendants');
  if (!chain) return null;
  const z = dag.nodes[chain[chain.length - 1]!]!.id;
  return refuse(`${xName} must come before ${z}, which depends on it: ${describeChain(dag, chain)}`);
}

/** The edited design, once compiled and simulated again: a move that breaks the run is refused. */
function proveRuns(next: Design): MoveResult {
  const check = runDesign(next, { keepSnapshots: false });
  if (!check.ok) {
    const e = check.errors[0]!;
    return refuse(`the moved order does not compile: ${e.path}: ${e.message}`);
  }
  const run = simulateRun(check, false).result;
  if (!run.ok) {
    const cycle = run.deadlock?.cycle.map((s) => `${s.instruction} on device ${s.device}`).join(' → ');
    return refuse(
      cycle
        ? `the moved order deadlocks: ${cycle} wait for each other`
        : `the moved order does not run: ${run.errors[0]?.message ?? 'the simulator refused it'}`,
    );
  }
  return { ok: true, design: next };
}

function refuse(reason: string): Refusal {
  return { ok: false, reason };
}

function locate(plan: Plan): Map<string, Located> {
  const out = new Map<string, Located>();
  for (const d of plan.devices) {
    for (const s of d.streams) {
      for (const i of s.instructions) {
        const nodeIds = i.op === 'OVERLAP' ? i.members.map((m) => m.id) : [i.id];
        out.set(i.id, { device: d.device, instruction: i, nodeIds });
        if (i.op === 'OVERLAP') {
          // A member dragged on its own moves its whole unit.
          for (const m of i.members) out.set(m.id, { device: d.device, instruction: i, nodeIds });
        }
      }
    }
  }
  return out;
}

/** The slots of every order of the program, by entry, as they run (scheduleEdits.ts). */
function runningOrders(
  design: Design,
  program: CompiledDesign['program'],
): Map<number, readonly (readonly Filter[])[]> {
  const regions = splitRegions(design);
  const out = new Map<number, readonly (readonly Filter[])[]>();
  program.forEach((e, entry) => {
    if (e.directive.op === 'order') out.set(entry, runningSlots(e.directive.filters, regions));
  });
  return out;
}

/** Which running order slot every ordered node sits in. */
function orderSlots(
  dag: Dag,
  program: CompiledDesign['program'],
  running: Map<number, readonly (readonly Filter[])[]>,
): Map<number, SlotRef> {
  const index = new NodeIndex(dag);
  const out = new Map<number, SlotRef>();
  for (const [entry, slots] of running) {
    slots.forEach((slot, j) => {
      for (const f of slot)
        for (const n of index.match(f, [...program[entry]!.path, 'filters', j]))
          out.set(n, { entry, slot: j });
    });
  }
  return out;
}

/** Nodes of the dragged unit, and other regions of the same stage and pass that share its filter. */
function sameUnit(dag: Dag, n: number, unit: number[]): boolean {
  const node = dag.nodes[n]!;
  return unit.some((u) => {
    const m = dag.nodes[u]!;
    return u === n || (m.op === node.op && m.dims.every((d, k) => d === node.dims[k]));
  });
}

/** An order for one device from its compute stream as compiled: one slot per instruction. */
function orderFromPlan(plan: Plan, device: number): OrderDirective {
  const filters: Filter[][] = [];
  const seen = new Set<string>();
  const d = plan.devices.find((x) => x.device === device);
  for (const s of d?.streams ?? []) {
    for (const i of s.instructions) {
      const members = i.op === 'OVERLAP' ? i.members : ORDERABLE.has(i.op) ? [i] : [];
      const slot = members.map((m) => m.tags as Filter);
      const key = JSON.stringify(slot);
      if (slot.length === 0 || seen.has(key)) continue;
      seen.add(key);
      filters.push(slot);
    }
  }
  return { op: 'order', filters };
}

/**
 * Search from `from` over data edges and over temporal edges of other device groups (this group's
 * own order is what is being edited), towards ancestors or descendants. Returns the path, in
 * execution order, to the first target reached, or null.
 */
function firstReached(
  dag: Dag,
  from: number[],
  targets: number[],
  direction: 'ancestors' | 'descendants',
): number[] | null {
  const wanted = new Set(targets);
  if (wanted.size === 0) return null;
  const group = dag.nodes[from[0]!]!.group;
  const { from: ef, to: et, kind } = dag.edges;
  const n = dag.nodes.length;
  // Adjacency in the search direction, as offsets into one edge array.
  const count = new Int32Array(n + 1);
  const skip = (k: number) =>
    kind[k] === EDGE_TEMPORAL && dag.nodes[ef[k]!]!.group === group && dag.nodes[et[k]!]!.group === group;
  for (let k = 0; k < ef.length; k++)
    if (!skip(k)) count[(direction === 'ancestors' ? et[k] : ef[k])! + 1]!++;
  for (let v = 0; v < n; v++) count[v + 1]! += count[v]!;
  const adj = new Int32Array(count[n]!);
  const fill = count.slice();
  for (let k = 0; k < ef.length; k++) {
    if (skip(k)) continue;
    const [u, v] = direction === 'ancestors' ? [et[k]!, ef[k]!] : [ef[k]!, et[k]!];
    adj[fill[u]!++] = v;
  }
  const parent = new Int32Array(n).fill(-2);
  const queue: number[] = [];
  for (const s of from) {
    parent[s] = -1;
    queue.push(s);
  }
  for (let q = 0; q < queue.length; q++) {
    const u = queue[q]!;
    for (let k = count[u]!; k < count[u + 1]!; k++) {
      const v = adj[k]!;
      if (parent[v] !== -2) continue;
      parent[v] = u;
      if (wanted.has(v)) {
        const path = [v];
        for (let w = u; w !== -1; w = parent[w]!) path.push(w);
        // Built from the target back to the source: that is execution order for ancestors.
        return direction === 'ancestors' ? path : path.reverse();
      }
      queue.push(v);
    }
  }
  return null;
}

/** A dependency chain as a user reads it: the compute ops, with the device where it changes. */
function describeChain(dag: Dag, chain: number[]): string {
  const deviceOf = (n: number) => dag.groups[dag.nodes[n]!.group]?.join('+') ?? '?';
  const steps: string[] = [];
  let lastDevice = '';
  for (const n of chain) {
    const node = dag.nodes[n]!;
    if (node.kind !== 'compute') continue;
    const dev = deviceOf(n);
    steps.push(dev === lastDevice ? node.id : `${node.id} (device ${dev})`);
    lastDevice = dev;
  }
  const shown = steps.length > 8 ? [...steps.slice(0, 4), '…', ...steps.slice(-3)] : steps;
  return shown.join(' → ');
}
