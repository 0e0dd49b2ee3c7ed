/** `POST /api/export`: the compiled design as a file an existing engine or viewer reads. */

import { estimatedOps } from '@stagecraft/passes';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { retryAfterOf } from '../pool/compilePool.ts';
import { compilableDesign, exportBodySchema, parseBody } from '../schemas.ts';
import type { AppContext } from './context.ts';

export function exportRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/export', async (req, reply) => {
    const body = parseBody(exportBodySchema, req.body);
    const design = compilableDesign(body.design, ctx.limits.maxOps);
    const answer = await ctx.pool.run({
      task: {
        kind: 'export',
        design,
        format: body.format,
        options: body.options ?? {},
        maxBytes: ctx.limits.exportBytes,
      },
      size: estimatedOps(design),
    });
    if (!answer.ok) throw new ApiError(answer.status, answer.errors, retryAfterOf(answer));
    return reply
      .code(200)
      .type(answer.mediaType)
      .header('content-disposition', attachment(`${design.name}.${fileSuffix(body, answer.fileExtension)}`))
      .send(answer.text);
  });
}

/**
 * The file's suffix: the format's extension, and for torch-csv which of its two files it is
 * (`compute.csv`, `comms.csv`), so the two exports of one design do not overwrite each other.
 */
function fileSuffix(
  body: { format: string; options?: { torchFormat?: string | undefined } | undefined },
  extension: string,
): string {
  if (body.format !== 'torch-csv') return extension;
  return `${body.options?.torchFormat === 'compute_comms' ? 'comms' : 'compute'}.${extension}`;
}

/** `attachment; filename="…"` with an ASCII fallback and the exact name in RFC 5987 form. */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\w .,()+-]/g, '_').slice(0, 200);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
