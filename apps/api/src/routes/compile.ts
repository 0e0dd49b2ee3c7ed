/**
 * `POST /api/compile`: a design in, the DAG, the passes, the plan and the simulated step out.
 * Answers come from the content-hash cache when the same design was compiled with the same
 * options before; otherwise from the worker pool.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.ts';
import { contentHash } from '../canonical.ts';
import { type CompileInclude, DEFAULT_INCLUDE } from '../compileResponse.ts';
import { ApiError } from '../errors.ts';
import { compilableDesign, compileBodySchema, parseBody } from '../schemas.ts';

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
    const include: CompileInclude = { ...DEFAULT_INCLUDE, ...body.include };
    const hash = contentHash(design);
    const key = `${hash}|${include.snapshots}|${include.timeline}|${include.plan}|${include.dag}|${ctx.limits.maxOps}`;
    const { designId, revision } = body;
    let answerBody = ctx.cache.get(key);
    const cached = answerBody !== undefined;
    if (answerBody !== undefined) {
      if (designId !== undefined && revision !== undefined) {
        const stale = ctx.pool.claim(designId, revision);
        if (stale) throw new ApiError(stale.status, stale.errors);
      }
    } else {
      const answer = await ctx.pool.run({
        task: { kind: 'compile', design, include },
        ...(designId !== undefined ? { designId } : {}),
        ...(revision !== undefined ? { revision } : {}),
      });
      if (!answer.ok) throw new ApiError(answer.status, answer.errors);
      answerBody = answer.body;
      ctx.cache.set(key, answerBody);
    }
    // The worker's bytes go out as they are, after the fields only this request knows: one copy
    // of the answer, no encoding, no serialisation on the event loop.
    const head = Buffer.from(`{"ok":true,"hash":"${hash}","cached":${cached},`);
    const rest = answerBody.subarray(1);
    return reply
      .code(200)
      .type('application/json; charset=utf-8')
      .send(Buffer.concat([head, rest], head.byteLength + rest.byteLength));
  });
}
