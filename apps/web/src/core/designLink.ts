/**
 * A link that carries the design itself, not a saved id: the design's JSON, deflated
 * (CompressionStream "deflate-raw", RFC 1951) and written base64url (RFC 4648 §5) in the URL
 * fragment as `#d=…`, so it never reaches a server's logs. Reading one goes through the design
 * format's own parser (its zod schemas and migrations, parseDesign), so an old link opens as the
 * current format and a corrupt one is refused with what is wrong, never a stack trace.
 */
import { type Design, parseDesign } from '@stagecraft/ir';

export const LINK_KEY = 'd';

export type LinkReading = { ok: true; design: Design } | { ok: false; error: string };

async function through(
  bytes: Uint8Array<ArrayBuffer>,
  stream: CompressionStream | DecompressionStream,
): Promise<Uint8Array<ArrayBuffer>> {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  // In slices: String.fromCharCode takes its bytes as arguments, and a stack holds only so many.
  for (let i = 0; i < bytes.length; i += 0x8000)
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The fragment (without `#`) that carries the design. */
export async function designFragment(design: Design): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(design)) as Uint8Array<ArrayBuffer>;
  return `${LINK_KEY}=${base64url(await through(json, new CompressionStream('deflate-raw')))}`;
}

/** The design a fragment carries, null when the fragment carries none (`#design=id`, empty). */
export function linkPayload(hash: string): string | null {
  const m = new RegExp(`^#?${LINK_KEY}=(.*)$`).exec(hash);
  return m ? m[1]! : null;
}

/** Reads the design a link carries, or says why it cannot. */
export async function readDesignLink(payload: string): Promise<LinkReading> {
  const bytes = fromBase64url(payload);
  if (!bytes || bytes.length === 0)
    return { ok: false, error: 'the link carries no design: its #d= part is not base64url' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(
      await through(bytes, new DecompressionStream('deflate-raw')),
    );
  } catch {
    return { ok: false, error: 'the link’s design is corrupt: it does not inflate (cut short or edited?)' };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: 'the link’s design is corrupt: it inflates to text that is not JSON' };
  }
  const parsed = parseDesign(json);
  if (!parsed.ok)
    return {
      ok: false,
      error: `the link’s design is not a valid design: ${parsed.errors
        .slice(0, 3)
        .map((e) => `${e.path || '(root)'}: ${e.message}`)
        .join('; ')}`,
    };
  return { ok: true, design: parsed.design };
}
