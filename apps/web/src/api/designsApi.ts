/**
 * The web app's client of the Stagecraft API (docs/api.md): saved designs with versions, and
 * exports. Every response is checked with zod; a failure comes back as a message, never a throw
 * (`request`, which the planner's client, planJobsApi.ts, shares).
 */
import { type Design, parseDesign } from '@stagecraft/ir';
import { z } from 'zod';
import type { ExportKind } from '../core/exportName.ts';
import { nextTask } from '../core/nextTask.ts';

export type ApiResult<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

const errorBody = z.object({ error: z.object({ path: z.string(), message: z.string() }) });
const savedRef = z.object({ id: z.string(), version: z.number().int() });
const designList = z.object({
  designs: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      version: z.number(),
      updatedAt: z.string(),
      /** The example this design is the working copy of. */
      example: z.string().optional(),
    }),
  ),
});
const versionList = z.object({
  versions: z.array(z.object({ version: z.number(), savedAt: z.string(), name: z.string() })),
});
const savedDesign = z.object({ id: z.string(), version: z.number(), design: z.unknown() });

export type DesignSummary = z.infer<typeof designList>['designs'][number];
export type VersionSummary = z.infer<typeof versionList>['versions'][number];

export async function request<T>(
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

/** `example`: the example a new design is the working copy of (recorded when it is created). */
export async function saveDesign(
  id: string,
  design: Design,
  baseVersion?: number,
  example?: string,
): Promise<ApiResult<{ id: string; version: number }>> {
  return request('PUT', `/api/designs/${encodeURIComponent(id)}`, savedRef, {
    design,
    ...(baseVersion !== undefined ? { baseVersion } : {}),
    ...(example !== undefined ? { example } : {}),
  });
}

/**
 * The save of a page going away (pagehide): a keepalive request outlives the page, where the
 * ordinary fetch would be cancelled. Browsers cap a keepalive body at 64 KiB (Fetch standard,
 * "keepalive"); a larger design is refused here, so the caller knows and warned before the unload.
 * False when it could not be sent.
 */
export function saveDesignOnLeave(id: string, design: Design, example?: string): boolean {
  const body = JSON.stringify({ design, ...(example !== undefined ? { example } : {}) });
  if (new TextEncoder().encode(body).length > KEEPALIVE_BODY_BYTES) return false;
  try {
    void fetch(`/api/designs/${encodeURIComponent(id)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body,
      keepalive: true,
    }).catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}

/** The Fetch standard's limit on the bodies of keepalive requests in flight (64 KiB). */
const KEEPALIVE_BODY_BYTES = 64 * 1024;

export async function openDesign(id: string): Promise<ApiResult<{ version: number; design: Design }>> {
  const r = await request('GET', `/api/designs/${encodeURIComponent(id)}`, savedDesign);
  if (!r.ok) return r;
  const d = designOf(r.value.design);
  // The page's render of the opened design runs in a task after its validation (DeepSeek-V3's:
  // 50–200 ms), not in the same one.
  await nextTask();
  return d.ok ? { ok: true, value: { version: r.value.version, design: d.value } } : d;
}

/** DELETE /api/designs/:id: the design and all its versions. */
export async function deleteDesign(id: string): Promise<ApiResult<unknown>> {
  return request('DELETE', `/api/designs/${encodeURIComponent(id)}`, z.unknown());
}

/**
 * Renames a saved design: its latest version saved again under the new name, as a new version
 * (the old name stays in its history). Refused with 409 when someone saved it in between.
 */
export async function renameSaved(
  id: string,
  name: string,
): Promise<ApiResult<{ id: string; version: number }>> {
  const r = await openDesign(id);
  if (!r.ok) return r;
  return saveDesign(id, { ...r.value.design, name }, r.value.version);
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
  { key: 'chrome-trace', kind: 'chrome-trace', label: 'Chrome trace (Perfetto)', options: {} },
  {
    key: 'torch-csv',
    kind: 'torch-csv-compute_only',
    label: 'torch pipelining CSV (compute only)',
    options: { torchFormat: 'compute_only' },
  },
  {
    key: 'torch-csv',
    kind: 'torch-csv-compute_comms',
    label: 'torch pipelining CSV (with comms)',
    options: { torchFormat: 'compute_comms' },
  },
  { key: 'piper', kind: 'piper', label: 'Piper program', options: {} },
  { key: 'plan', kind: 'plan', label: 'Plan (stagecraft/plan@2)', options: {} },
] as const satisfies readonly { key: string; kind: ExportKind; label: string; options: object }[];

/** How far an export has come: the server compiling (no bytes yet), then the file arriving. */
export type ExportProgress = { phase: 'compiling' } | { phase: 'receiving'; bytes: number; total?: number };

/**
 * POST /api/export: the file as a Blob, read as it streams in so a large file (a 20 MB trace)
 * reports its progress. The name is the caller's (core/exportName.ts), not the API's.
 */
export async function exportDesign(
  design: Design,
  format: string,
  options: Record<string, string>,
  onProgress?: (p: ExportProgress) => void,
): Promise<ApiResult<Blob>> {
  let res: Response;
  onProgress?.({ phase: 'compiling' });
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
  const type = res.headers.get('content-type') ?? 'application/octet-stream';
  const length = Number(res.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : undefined;
  if (!res.body) return { ok: true, value: await res.blob() };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
      onProgress?.({ phase: 'receiving', bytes, ...(total !== undefined ? { total } : {}) });
    }
  } catch {
    return { ok: false, status: 0, message: 'the connection broke while the file was arriving' };
  }
  return { ok: true, value: new Blob(chunks as BlobPart[], { type }) };
}
