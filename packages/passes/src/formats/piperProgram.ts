/**
 * Piper programs: the fully expanded directive program with Piper's six ops only (place,
 * replicate, shard, shard_tensor, split, order) and Piper's field names, a JSON array as Piper's
 * runtime takes it. Export expands Stagecraft's macros and drops its resource knobs (`stream`),
 * then proves the program still compiles to the same plan; import validates every directive and
 * every tag, and runs the program on a synthetic model (or a given one).
 *
 * Piper has no `split_backward`: it splits a backward whose BI or BW an order names. So a B slot
 * of a region `split_backward` split is written as the halves it runs (splitHalves.ts): BI in the
 * B's row and BW in a row of its own right after, never both in one row, which Piper reads as
 * ops that may overlap.
 */
import {
  type Cluster,
  CompileError,
  type Dag,
  DESIGN_FORMAT,
  type Design,
  type DesignResult,
  DIRECTIVE_OPS,
  type Directive,
  deviceCount,
  type Filter,
  formatPath,
  type Issue,
  IssueList,
  type Model,
  type OrderDirective,
  type PathSegment,
  PIPER_OPS,
  type Plan,
  parseDirective,
  parseJsonText,
  subgroupsOf,
} from '@stagecraft/ir';
import { compile } from '../compile/compile.ts';
import type { ExpandedDirective } from '../driver/compileTypes.ts';
import { lowerModel, modelBlockCount } from '../model/lowerModel.ts';
import { NodeIndex } from '../program/nodeIndex.ts';
import { regionsOf } from '../program/region.ts';
import { splitHalves } from '../program/splitHalves.ts';
import { piperRefusal } from './exportRefusal.ts';
import { clusterDevices, importSizeIssue } from './importSize.ts';

export type PiperResult = { ok: true; text: string; program: Directive[] } | { ok: false; errors: Issue[] };

/**
 * The Piper program of a compiled design. `plan` and `dag` are the design's compiled plan and
 * DAG: the program is compiled again without the Stagecraft-only directives and must give the
 * same plan, so a `split_backward` that no order makes redundant is refused rather than silently
 * lost.
 */
export function exportPiperProgram(
  design: Design,
  program: readonly ExpandedDirective[],
  plan: Plan,
  dag: Dag,
): PiperResult {
  const refused = piperRefusal(program);
  if (refused) return { ok: false, errors: [refused] };
  const halves = splitHalves(dag, program);
  const out: Directive[] = [];
  for (const e of program) {
    const d = e.directive;
    if (!PIPER_OPS.includes(d.op)) continue;
    const { enabled: _enabled, ...rest } = d;
    if ((d.op === 'replicate' || d.op === 'shard' || d.op === 'shard_tensor') && d.axis !== undefined) {
      out.push(...perSubgroup(rest as typeof d, e.path, design, dag));
      continue;
    }
    out.push(halves && d.op === 'order' ? withHalves(d, NodeIndex.of(dag), halves) : (rest as Directive));
  }
  const again = compile({ ...design, directives: out }, { keepSnapshots: false });
  const dropped = program.filter((e) => !PIPER_OPS.includes(e.directive.op));
  if (!again.ok || !samePlan(again.plan, plan)) {
    const culprit = dropped.find((e) => e.directive.op !== 'stream') ?? dropped[0];
    return {
      ok: false,
      errors: [
        {
          path: culprit ? formatPath(culprit.path) : '',
          message: `${culprit ? `${culprit.directive.op} changes` : 'the expanded program does not give'} the plan, and Piper's six ops cannot express it`,
        },
      ],
    };
  }
  return { ok: true, text: formatProgram(out), program: out };
}

/**
 * A directive over mesh axes as Piper writes it: one directive per sub-group with its own device
 * list (over every axis of a mesh: one with the group's devices). Compiling reads them back as one
 * (subgroupDirectives.ts), which the plan check proves.
 */
function perSubgroup(
  d: Extract<Directive, { op: 'replicate' | 'shard' | 'shard_tensor' }>,
  path: readonly PathSegment[],
  design: Design,
  dag: Dag,
): Directive[] {
  const { axis: _axis, devices: _devices, ...rest } = d;
  const out: Directive[] = [];
  for (const r of regionsOf(dag, NodeIndex.of(dag), d, path, deviceCount(design.cluster))) {
    const members = dag.groups[r.group]!;
    const mesh = dag.meshes?.[r.group];
    const sets =
      r.mask === null || !mesh ? [members] : subgroupsOf(mesh, r.mask).map((s) => s.map((k) => members[k]!));
    for (const devices of sets) out.push({ ...rest, devices: [...devices] } as Directive);
  }
  return out;
}

/**
 * `order` with every B filter that names only split halves written as the halves: BI in its
 * row, BW in a row right after. A filter naming fused backwards too is left as it is: no filter
 * says "these halves and those fused", so the plan check refuses the program.
 */
function withHalves(d: OrderDirective, index: NodeIndex, halves: Uint8Array): OrderDirective {
  const names = (f: Filter, pass: 'B' | 'BI') => {
    const n = index.find({ ...f, PASS: pass }, []);
    const found = index.found();
    let marked = 0;
    for (let k = 0; k < n; k++) marked += halves[found[k]!]!;
    return { n, marked };
  };
  const splitB = (f: Filter) => f.PASS === 'B' && names(f, 'B').n === 0 && names(f, 'BI').marked > 0;
  const filters: Filter[][] = [];
  for (const slot of d.filters) {
    const split = slot.filter(splitB);
    filters.push(split.length === 0 ? slot : slot.map((f) => (split.includes(f) ? { ...f, PASS: 'BI' } : f)));
    if (split.length > 0) filters.push(split.map((f) => ({ ...f, PASS: 'BW' })));
  }
  return { op: 'order', filters };
}

function samePlan(a: Plan, b: Plan): boolean {
  return JSON.stringify(executedPlan(a)) === JSON.stringify(executedPlan(b));
}

/**
 * What a Piper runtime executes of a plan: without stream knobs (priority, SM share), which a
 * Piper program does not carry, and without provenance, whose directive indices shift when the
 * Stagecraft-only `stream` directives are left out of the program.
 */
export function executedPlan(p: Plan): Plan {
  const bare = <T extends { provenance?: unknown }>({ provenance: _p, ...rest }: T) => rest;
  return {
    ...p,
    devices: p.devices.map((d) => ({
      ...d,
      streams: d.streams.map(({ priority: _p, smFraction: _s, ...s }) => ({
        ...s,
        instructions: s.instructions.map((i) =>
          i.op === 'OVERLAP' ? { ...bare(i), members: i.members.map(bare) } : bare(i),
        ),
      })),
    })),
  } as Plan;
}

/** JSON with one directive per line, and one slot per line inside an order. */
export function formatProgram(program: readonly Directive[]): string {
  const lines = program.map((d) => {
    if (d.op !== 'order' || d.filters.length === 0) return `  ${JSON.stringify(d)}`;
    const { filters, ...head } = d;
    const open = JSON.stringify(head).slice(0, -1);
    const slots = filters.map((s) => `    ${JSON.stringify(s)}`).join(',\n');
    return `  ${open},"filters":[\n${slots}\n  ]}`;
  });
  return lines.length === 0 ? '[]\n' : `[\n${lines.join(',\n')}\n]\n`;
}

export interface PiperImportOptions {
  /** The model to run on; by default one synthetic block per PP value the program names. */
  model?: Model;
  /** The cluster; by default an ideal cluster with every device the program names. */
  cluster?: Cluster;
  name?: string;
  /** The compiler's op limit, checked against the program's size before anything is built. */
  maxOps?: number;
}

/** A Piper program (JSON array of directives) as a design. Errors name the directive index. */
export function importPiper(text: string, options: PiperImportOptions = {}): DesignResult {
  const json = parseJsonText(text);
  if (!json.ok) return json;
  const list = Array.isArray(json.value)
    ? json.value
    : isProgramObject(json.value)
      ? json.value.directives
      : undefined;
  if (!list)
    return { ok: false, errors: [{ path: '', message: 'a Piper program is a JSON array of directives' }] };
  const errors = new IssueList();
  const directives: Directive[] = [];
  list.forEach((raw, i) => {
    const path: PathSegment[] = ['directives', i];
    const op = typeof raw === 'object' && raw !== null ? (raw as { op?: unknown }).op : undefined;
    if (typeof op === 'string' && !PIPER_OPS.includes(op as Directive['op'])) {
      const own = (DIRECTIVE_OPS as string[]).includes(op);
      errors.push({
        path: formatPath([...path, 'op']),
        message: own
          ? `${op} is a Stagecraft directive, not one of Piper's ops (${PIPER_OPS.join(', ')}); a design file can hold it`
          : `unknown Piper op ${JSON.stringify(op)} (Piper's ops are ${PIPER_OPS.join(', ')})`,
      });
      return;
    }
    const r = parseDirective(raw, path);
    for (const e of r.errors) errors.push(e);
    if (r.directive) directives.push(r.directive);
  });
  if (errors.count > 0) return { ok: false, errors: errors.issues() };

  const given = options.model ? blockTags(options.model) : undefined;
  if (given && 'errors' in given) return { ok: false, errors: given.errors };
  const dims = new Set(directives.flatMap((d) => (d.op === 'split' ? [d.dim_name] : [])));
  const known = given?.tags ?? new Set(['PP']);
  let maxPP = -1;
  let maxDevice = 0;
  let ppAt = '';
  let deviceAt = '';
  let microbatches = { count: 1, path: '' };
  const checkFilter = (f: Filter, at: PathSegment[]) => {
    for (const [k, v] of Object.entries(f)) {
      if (k === 'PASS' || dims.has(k)) continue;
      if (!known.has(k)) {
        errors.push({
          path: formatPath([...at, k]),
          message: `unknown tag ${k} (the model's tags are ${[...known].join(', ') || 'none'}; split dimensions ${[...dims].join(', ') || 'none'}; and PASS)`,
        });
      } else if (k === 'PP' && typeof v === 'number' && v > maxPP)
        [maxPP, ppAt] = [v, formatPath([...at, k])];
    }
  };
  directives.forEach((d, i) => {
    const at: PathSegment[] = ['directives', i];
    if (d.op === 'order') {
      d.filters.forEach((slot, j) => {
        slot.forEach((f, q) => {
          checkFilter(f, [...at, 'filters', j, q]);
        });
      });
    } else if ('filter' in d) checkFilter(d.filter, [...at, 'filter']);
    if ('devices' in d)
      (d.devices ?? []).forEach((dev, j) => {
        if (dev > maxDevice) [maxDevice, deviceAt] = [dev, formatPath([...at, 'devices', j])];
      });
    if (d.op === 'split' && d.num_microbatches > microbatches.count)
      microbatches = { count: d.num_microbatches, path: formatPath([...at, 'num_microbatches']) };
  });
  if (errors.count > 0) return { ok: false, errors: errors.issues() };
  const tooLarge = importSizeIssue(
    {
      blocks: options.model
        ? { count: modelBlockCount(options.model), path: 'model' }
        : { count: maxPP + 1 || 1, path: ppAt },
      microbatches,
      devices: options.cluster
        ? { count: clusterDevices(options.cluster), path: 'cluster' }
        : { count: maxDevice + 1, path: deviceAt },
    },
    options.maxOps,
  );
  if (tooLarge) return { ok: false, errors: [tooLarge] };
  const design: Design = {
    format: DESIGN_FORMAT,
    name: options.name ?? 'Piper program',
    model: options.model ?? { kind: 'synthetic', stages: maxPP + 1 || 1, costs: { F: 1, BI: 1, BW: 1 } },
    cluster: options.cluster ?? { kind: 'ideal', devices: maxDevice + 1 },
    directives,
  };
  const compiled = compile(design, { keepSnapshots: false });
  if (!compiled.ok) return { ok: false, errors: compiled.errors };
  return { ok: true, design };
}

function isProgramObject(v: unknown): v is { directives: unknown[] } {
  return typeof v === 'object' && v !== null && Array.isArray((v as { directives?: unknown }).directives);
}

function blockTags(model: Model): { tags: Set<string> } | { errors: Issue[] } {
  try {
    const tags = new Set<string>();
    for (const b of lowerModel(model)) for (const k of Object.keys(b.tags)) tags.add(k);
    return { tags };
  } catch (e) {
    if (e instanceof CompileError) return { errors: e.issues };
    throw e;
  }
}
