/** Saved designs and their version history (`/api/designs`). */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { DESIGN_ID, type QuotaExceeded } from '../designStore.ts';
import { ApiError } from '../errors.ts';
import {
  createDesignBodySchema,
  designField,
  designId,
  parseBody,
  putDesignBodySchema,
  versionNumber,
} from '../schemas.ts';
import type { AppContext } from './context.ts';

interface IdParams {
  id: string;
}

interface VersionParams extends IdParams {
  version: string;
}

export function designRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { store } = ctx;
  const notFound = (id: string) => new ApiError(404, { path: 'id', message: `no design with id "${id}"` });

  app.get('/api/designs', async () => ({ designs: store.list() }));

  app.post('/api/designs', async (req, reply) => {
    const body = parseBody(createDesignBodySchema, req.body);
    if (body.id !== undefined && !DESIGN_ID.test(body.id)) {
      throw new ApiError(400, {
        path: 'id',
        message: 'not a design id (expected 1 to 64 of a-z, 0-9 and "-", starting with a letter or digit)',
      });
    }
    const design = designField(body.design);
    if (body.id !== undefined) {
      const saved = store.create(body.id, design);
      if (!saved)
        throw new ApiError(409, { path: 'id', message: `a design with id "${body.id}" exists already` });
      if ('quota' in saved) throw quotaError(saved.quota);
      return reply.code(201).send(saved);
    }
    // A fresh id from the name; the random part makes a clash practically impossible, and a clash is retried.
    for (let attempt = 0; attempt < 5; attempt++) {
      const saved = store.create(freshId(design.name), design);
      if (saved && 'quota' in saved) throw quotaError(saved.quota);
      if (saved) return reply.code(201).send(saved);
    }
    throw new ApiError(500, { path: '', message: 'internal error: could not choose a design id' });
  });

  app.get<{ Params: IdParams }>('/api/designs/:id', async (req) => {
    const id = designId(req.params.id);
    const saved = store.get(id);
    if (!saved) throw notFound(id);
    return saved;
  });

  app.put<{ Params: IdParams }>('/api/designs/:id', async (req) => {
    const id = designId(req.params.id);
    const body = parseBody(putDesignBodySchema, req.body);
    const design = designField(body.design);
    const r = store.put(id, design, body.baseVersion, body.example);
    if (!r.ok && 'quota' in r) throw quotaError(r.quota);
    if (!r.ok) {
      throw new ApiError(409, {
        path: 'baseVersion',
        message:
          r.latest === undefined
            ? `design "${id}" has no versions yet (baseVersion ${body.baseVersion} given)`
            : `version ${body.baseVersion} is not the latest version of "${id}" (the latest is ${r.latest})`,
      });
    }
    return { id: r.id, version: r.version };
  });

  app.delete<{ Params: IdParams }>('/api/designs/:id', async (req, reply) => {
    const id = designId(req.params.id);
    if (!store.delete(id)) throw notFound(id);
    return reply.code(204).send();
  });

  app.get<{ Params: IdParams }>('/api/designs/:id/versions', async (req) => {
    const id = designId(req.params.id);
    const versions = store.versions(id);
    if (!versions) throw notFound(id);
    return { versions };
  });

  app.get<{ Params: VersionParams }>('/api/designs/:id/versions/:version', async (req) => {
    const id = designId(req.params.id);
    const version = versionNumber(req.params.version);
    const saved = store.version(id, version);
    if (!saved) {
      if (!store.has(id)) throw notFound(id);
      throw new ApiError(404, { path: 'version', message: `design "${id}" has no version ${version}` });
    }
    return saved;
  });
}

/** 507 Insufficient Storage (RFC 4918): the request is fine, the database has no room for it. */
function quotaError(q: QuotaExceeded): ApiError {
  const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  return new ApiError(507, {
    path: 'design',
    message: `the saved designs would pass the database's quota of ${mib(q.quotaBytes)} (${mib(q.usedBytes)} used, this design ${mib(q.designBytes)}); delete designs you no longer need`,
  });
}

function freshId(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  const suffix = randomBytes(4).toString('hex');
  return slug ? `${slug}-${suffix}` : `design-${suffix}`;
}
