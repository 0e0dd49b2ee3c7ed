/**
 * `POST /api/compile`: a design in, the DAG, the passes, the plan and the simulated step out.
 * Answers come from the content-hash cache when the same design was compiled with the same
 * options before; otherwise from the worker pool.
 */

import { estimatedOps } from '@stagecraft/passes';
import type { FastifyInstance } from 'fastify';
import { contentHash } from '../canonical.ts';
import { BRIEF_INCLUDE, type CompileInclude, DEFAULT_INCLUDE, omittedParts } from '../compileResponse.ts';
import { ApiError } from '../errors.ts';
import { retryAfterOf } from '../pool/compilePool.ts';
import { compilableDesign, compileBodySchema, parseBody } from '../schemas.ts';
import type { AppContext } from './context.ts';

export function compileRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/compile', async (req, reply) => {
    const body = parseBody(compileBodySchema, req.body);
    const design = compilableDesign(body.design, ctx.limits.maxOps);
    if (body.revision !== undefined && body.designId === undefined) {
      throw new ApiError(400, {
        path: 'revision',
        message: 'a revision needs the designId it is a revision of',
      });
    }
    const size = estimatedOps(design);
    // A big design's whole answer runs to hundreds of MiB (292 MiB for interleaved p=32
    // m=2048): by default it gets the metrics and the program, and says what it left out.
    const defaults = size > ctx.limits.detailOps ? BRIEF_INCLUDE : DEFAULT_INCLUDE;
    const include: CompileInclude = { ...defaults, ...body.include };
    const omitted = omittedParts(include, body.include ?? {});
    const hash = contentHash(design);
    const key = `${hash}|${include.snapshots}|${include.timeline}|${include.plan}|${include.dag}|${include.steps ?? 1}|${omitted.join(',')}|${ctx.limits.maxOps}`;
    const { designId, revision } = body;
    const left = omitted.length > 0 ? `"omitted":${JSON.stringify(omitted)},` : '';
    const head = (cached: boolean) => `{"ok":true,"hash":"${hash}","cached":${cached},${left}`;
    const stored = ctx.cache.get(key);
    let answer: Buffer;
    if (stored !== undefined) {
      if (designId !== undefined && revision !== undefined) {
        const stale = ctx.pool.claim(designId, revision);
        if (stale) throw new ApiError(stale.status, stale.errors);
      }
      // Stored as first sent ("cached": false): only the opening changes.
      const opening = Buffer.from(head(true));
      const rest = stored.subarray(Buffer.byteLength(head(false)));
      answer = Buffer.concat([opening, rest], opening.byteLength + rest.byteLength);
    } else {
      // The worker writes the whole body, opening included, so a compiled answer goes out as the
      // bytes it transferred: no copy, no encoding, no serialisation on the event loop.
      const outcome = await ctx.pool.run({
        task: { kind: 'compile', design, include, head: head(false) },
        size,
        ...(designId !== undefined ? { designId } : {}),
        ...(revision !== undefined ? { revision } : {}),
      });
      if (!outcome.ok) throw new ApiError(outcome.status, outcome.errors, retryAfterOf(outcome));
      const { body: bytes } = outcome;
      answer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      ctx.cache.set(key, bytes);
    }
    return reply.code(200).type('application/json; charset=utf-8').send(answer);
  });
}
