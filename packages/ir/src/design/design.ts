import * as z from 'zod';
import { formatPath, type Issue, type PathSegment } from '../issue/issue.ts';
import { parseJsonText } from '../issue/json.ts';
import { fromZod } from '../issue/zodIssues.ts';
import { type Cluster, customClusterSchema, idealClusterSchema, presetClusterSchema } from './cluster.ts';
import { DIRECTIVE_OPS, type Directive, type DirectiveOp, directiveSchemas } from './directive.ts';
import { type Model, syntheticBlocksSchema, syntheticStagesSchema, transformerSchema } from './model.ts';

/**
 * The format this version writes. Every design it writes says @3, whether or not it uses what @3
 * added (meshes: a place's `mesh`, a schedule group given as a mesh, the `axis` of replicate /
 * shard / shard_tensor) or @2 did (a schedule's `edits`): one format per version, as tldraw stamps its schema, so a file
 * says which reader it needs without anyone working out what it holds. Older files still load:
 * they are migrated on read (`migrations`).
 */
export const DESIGN_FORMAT = 'stagecraft/design@3';
export const DESIGN_VERSION = 3;
/**
 * The formats a design in memory may say: one parsed is always DESIGN_FORMAT, but one built in
 * code may still say @1 or @2, which are @3 designs without edits or without meshes.
 */
export type DesignFormat = 'stagecraft/design@1' | 'stagecraft/design@2' | typeof DESIGN_FORMAT;
/** The name of a design that has none and no file to take one from (a request body). */
export const UNTITLED_DESIGN = 'untitled';

export interface Design {
  format: DesignFormat;
  name: string;
  description?: string;
  model: Model;
  cluster: Cluster;
  directives: Directive[];
}

export type DesignResult = { ok: true; design: Design } | { ok: false; errors: Issue[] };

export interface ParseDesignOptions {
  /** The name of a design whose document has none: the CLI passes its file's base name. */
  defaultName?: string;
}

type Migrated = { doc: Record<string, unknown> } | { errors: Issue[] };

/**
 * Older design formats and how to bring each up to the next version. A saved design is migrated on
 * load, never rewritten in place, so an older file stays readable by the version that wrote it.
 */
const migrations: Record<number, (doc: Record<string, unknown>) => Migrated> = {
  // @2 added a schedule's `edits` and changed nothing else: an @1 design is an @2 one as it is.
  // One that has edits anyway was not written by an @1 reader, which would refuse them.
  1: (doc) => {
    const directives = Array.isArray(doc.directives) ? doc.directives : [];
    const errors: Issue[] = [];
    directives.forEach((d, i) => {
      if (isRecord(d) && d.op === 'schedule' && 'edits' in d)
        errors.push({
          path: formatPath(['directives', i, 'edits']),
          message: `a schedule's edits need format "stagecraft/design@2" (this design says @1)`,
        });
    });
    return errors.length > 0 ? { errors } : { doc: { ...doc, format: 'stagecraft/design@2' } };
  },
  // @3 added meshes (a place's `mesh`, a schedule group written as a mesh, the `axis` of replicate,
  // shard and shard_tensor) and changed nothing else: an @2 design is an @3 one as it is. One that
  // uses them anyway was not written by an @2 reader, which would refuse them.
  2: (doc) => {
    const directives = Array.isArray(doc.directives) ? doc.directives : [];
    const errors: Issue[] = [];
    const needs = (path: PathSegment[], what: string) =>
      errors.push({
        path: formatPath(path),
        message: `${what} needs format "stagecraft/design@3" (this design says @${doc.format === 'stagecraft/design@1' ? 1 : 2})`,
      });
    directives.forEach((d, i) => {
      if (!isRecord(d)) return;
      if (d.op === 'place' && 'mesh' in d) needs(['directives', i, 'mesh'], 'a mesh');
      if ((d.op === 'replicate' || d.op === 'shard' || d.op === 'shard_tensor') && 'axis' in d)
        needs(['directives', i, 'axis'], 'a mesh axis');
      if (d.op === 'schedule' && Array.isArray(d.groups))
        d.groups.forEach((g, k) => {
          if (isRecord(g)) needs(['directives', i, 'groups', k], 'a mesh');
        });
    });
    return errors.length > 0 ? { errors } : { doc: { ...doc, format: DESIGN_FORMAT } };
  },
};

/** Whether a document's `format` names a Stagecraft design of any version. */
export function isDesignFormat(format: unknown): boolean {
  return typeof format === 'string' && /^stagecraft\/design@\d+$/.test(format);
}

const headerSchema = z.strictObject({
  format: z.string(),
  // Optional, so a hand-written design needs no more than it runs on; a given name is never empty.
  name: z.string().min(1).max(200).optional(),
  description: z.string().max(10_000).optional(),
  model: z.unknown(),
  cluster: z.unknown(),
  directives: z.array(z.unknown()).max(200_000),
});

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function migrate(doc: Record<string, unknown>): Migrated {
  const format = doc.format;
  if (typeof format !== 'string')
    return { errors: [{ path: 'format', message: `required field missing (expected "${DESIGN_FORMAT}")` }] };
  const m = /^stagecraft\/design@(\d+)$/.exec(format);
  if (!m)
    return {
      errors: [
        {
          path: 'format',
          message: `not a Stagecraft design (expected "${DESIGN_FORMAT}", got ${JSON.stringify(format)})`,
        },
      ],
    };
  let version = Number(m[1]);
  if (version > DESIGN_VERSION) {
    return {
      errors: [
        {
          path: 'format',
          message: `design format version ${version} is newer than this Stagecraft reads (${DESIGN_VERSION})`,
        },
      ],
    };
  }
  let current = doc;
  while (version < DESIGN_VERSION) {
    const step = migrations[version];
    if (!step)
      return { errors: [{ path: 'format', message: `no migration from design format version ${version}` }] };
    const next = step(current);
    if ('errors' in next) return next;
    current = next.doc;
    version += 1;
  }
  return { doc: current };
}

function parseModel(v: unknown, path: PathSegment[]): { model?: Model; errors: Issue[] } {
  if (!isRecord(v)) return { errors: [{ path: formatPath(path), message: 'expected an object' }] };
  let schema: z.ZodType<Model>;
  if (v.kind === 'synthetic') schema = 'blocks' in v ? syntheticBlocksSchema : syntheticStagesSchema;
  else if (v.kind === 'transformer') schema = transformerSchema;
  else
    return {
      errors: [{ path: formatPath([...path, 'kind']), message: 'expected "synthetic" or "transformer"' }],
    };
  const r = schema.safeParse(v);
  return r.success ? { model: r.data, errors: [] } : { errors: fromZod(r.error, path) };
}

function parseCluster(v: unknown, path: PathSegment[]): { cluster?: Cluster; errors: Issue[] } {
  if (!isRecord(v)) return { errors: [{ path: formatPath(path), message: 'expected an object' }] };
  let schema: z.ZodType<Cluster>;
  if (v.kind === 'ideal') schema = idealClusterSchema;
  else if (v.kind === 'custom') schema = customClusterSchema;
  else if ('preset' in v) schema = presetClusterSchema;
  else
    return {
      errors: [
        { path: formatPath([...path, 'kind']), message: 'expected "ideal" or "custom", or a "preset"' },
      ],
    };
  const r = schema.safeParse(v);
  return r.success ? { cluster: r.data, errors: [] } : { errors: fromZod(r.error, path) };
}

/** Parses one directive, choosing its schema by `op` so the errors name that directive's fields. */
export function parseDirective(v: unknown, path: PathSegment[]): { directive?: Directive; errors: Issue[] } {
  if (!isRecord(v))
    return { errors: [{ path: formatPath(path), message: 'expected a directive object with an "op"' }] };
  const op = v.op;
  if (typeof op !== 'string' || !(DIRECTIVE_OPS as string[]).includes(op)) {
    return {
      errors: [
        {
          path: formatPath([...path, 'op']),
          message: `unknown directive ${JSON.stringify(op)} (expected one of ${DIRECTIVE_OPS.join(', ')})`,
        },
      ],
    };
  }
  const schema = directiveSchemas[op as DirectiveOp] as z.ZodType<Directive>;
  const r = schema.safeParse(v);
  if (r.success) return { directive: r.data, errors: [] };
  const errors = fromZod(r.error, path).map((i) =>
    i.path === formatPath([...path, 'builder'])
      ? { ...i, message: `unknown builder ${JSON.stringify(v.builder)} (${i.message})` }
      : i,
  );
  return { errors };
}

/** Validates a parsed JSON value as a design, migrating older formats. Never throws. */
export function parseDesign(input: unknown, options: ParseDesignOptions = {}): DesignResult {
  if (!isRecord(input)) return { ok: false, errors: [{ path: '', message: 'a design is a JSON object' }] };
  const migrated = migrate(input);
  if ('errors' in migrated) return { ok: false, errors: migrated.errors };
  const header = headerSchema.safeParse(migrated.doc);
  if (!header.success) return { ok: false, errors: fromZod(header.error) };
  const h = header.data;
  const errors: Issue[] = [];
  const model = parseModel(h.model, ['model']);
  const cluster = parseCluster(h.cluster, ['cluster']);
  errors.push(...model.errors, ...cluster.errors);
  const directives: Directive[] = [];
  h.directives.forEach((d, i) => {
    const r = parseDirective(d, ['directives', i]);
    if (r.directive) directives.push(r.directive);
    errors.push(...r.errors);
  });
  if (errors.length > 0 || !model.model || !cluster.cluster) return { ok: false, errors };
  const design: Design = {
    format: DESIGN_FORMAT,
    name: h.name ?? (options.defaultName || UNTITLED_DESIGN),
    model: model.model,
    cluster: cluster.cluster,
    directives,
  };
  if (h.description !== undefined) design.description = h.description;
  return { ok: true, design };
}

/** Parses design text (a file, a request body): JSON errors and design errors alike become issues. */
export function parseDesignText(text: string, options: ParseDesignOptions = {}): DesignResult {
  const json = parseJsonText(text);
  if (!json.ok) return json;
  return parseDesign(json.value, options);
}
