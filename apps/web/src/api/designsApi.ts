/**
 * The web app's client of the Stagecraft API (docs/api.md): saved designs with versions, and
 * exports. Every response is checked with zod; a failure comes back as a message, never a throw.
 */
import { type Design, parseDesign } from '@stagecraft/ir';
import { z } from 'zod';

export type ApiResult<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

const errorBody = z.object({ error: z.object({ path: z.string(), message: z.string() }) });
const savedRef = z.object({ id: z.string(), version: z.number().int() });
const designList = z.object({
  designs: z.array(
    z.object({ id: z.string(), name: z.string(), version: z.number(), updatedAt: z.string() }),
  ),
});
const versionList = z.object({
  versions: z.array(z.object({ version: z.number(), savedAt: z.string(), name: z.string() })),
});
const savedDesign = z.object({ id: z.string(), version: z.number(), design: z.unknown() });

export type DesignSummary = z.infer<typeof designList>['designs'][number];
export type VersionSummary = z.infer<typeof versionList>['versions'][number];

async function request<T>(
  method: string,
  url: string,
  schema: z.ZodType<T>,
  body?: unknown,
): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    return { ok: false, status: 0, message: 'the Stagecraft API is not reachable' };
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    return {
      ok: false,
      status: res.status,
      message: `the API answered ${res.status} with a body that is not JSON`,
    };
  }
  if (!res.ok) {
    const e = errorBody.safeParse(json);
    const message = e.success
      ? e.data.error.path
        ? `${e.data.error.path}: ${e.data.error.message}`
        : e.data.error.message
      : `the API answered ${res.status}`;
    return { ok: false, status: res.status, message };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, status: res.status, message: 'unexpected answer from the API' };
  return { ok: true, value: parsed.data };
}

function designOf(v: unknown): ApiResult<Design> {
  const d = parseDesign(v);
  return d.ok
    ? { ok: true, value: d.design }
    : {
        ok: false,
        status: 200,
        message: `saved design is invalid: ${d.errors[0]?.path}: ${d.errors[0]?.message}`,
      };
}

export async function listDesigns(): Promise<ApiResult<DesignSummary[]>> {
  const r = await request('GET', '/api/designs', designList);
  return r.ok ? { ok: true, value: r.value.designs } : r;
}

export async function saveDesign(
  id: string,
  design: Design,
  baseVersion?: number,
): Promise<ApiResult<{ id: string; version: number }>> {
  return request('PUT', `/api/designs/${encodeURIComponent(id)}`, savedRef, {
    design,
    ...(baseVersion !== undefined ? { baseVersion } : {}),
  });
}

export async function openDesign(id: string): Promise<ApiResult<{ version: number; design: Design }>> {
  const r = await request('GET', `/api/designs/${encodeURIComponent(id)}`, savedDesign);
  if (!r.ok) return r;
  const d = designOf(r.value.design);
  return d.ok ? { ok: true, value: { version: r.value.version, design: d.value } } : d;
}

export async function listVersions(id: string): Promise<ApiResult<VersionSummary[]>> {
  const r = await request('GET', `/api/designs/${encodeURIComponent(id)}/versions`, versionList);
  return r.ok ? { ok: true, value: r.value.versions } : r;
}

export async function openVersion(id: string, version: number): Promise<ApiResult<Design>> {
  const r = await request('GET', `/api/designs/${encodeURIComponent(id)}/versions/${version}`, savedDesign);
  return r.ok ? designOf(r.value.design) : r;
}

export const EXPORT_FORMATS = [
  { key: 'chrome-trace', label: 'Chrome trace (Perfetto)', options: {} },
  {
    key: 'torch-csv',
    label: 'torch pipelining CSV (compute only)',
    options: { torchFormat: 'compute_only' },
  },
  { key: 'torch-csv', label: 'torch pipelining CSV (with comms)', options: { torchFormat: 'compute_comms' } },
  { key: 'piper', label: 'Piper program', options: {} },
  { key: 'plan', label: 'Plan (stagecraft/plan@2)', options: {} },
] as const;

/** POST /api/export: the file as a Blob and the name the API gave it. */
export async function exportDesign(
  design: Design,
  format: string,
  options: Record<string, string>,
): Promise<ApiResult<{ blob: Blob; filename: string }>> {
  let res: Response;
  try {
    res = await fetch('/api/export', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ design, format, ...(Object.keys(options).length ? { options } : {}) }),
    });
  } catch {
    return { ok: false, status: 0, message: 'the Stagecraft API is not reachable' };
  }
  if (!res.ok) {
    const e = errorBody.safeParse(await res.json().catch(() => null));
    return {
      ok: false,
      status: res.status,
      message: e.success
        ? [e.data.error.path, e.data.error.message].filter(Boolean).join(': ')
        : `export failed (${res.status})`,
    };
  }
  const disposition = res.headers.get('content-disposition') ?? '';
  const m = /filename="([^"]+)"/.exec(disposition);
  return { ok: true, value: { blob: await res.blob(), filename: m?.[1] ?? `${design.name}.${format}` } };
}
