/**
 * Headers that keep a browser from misreading or misusing what the server sends: the web app's
 * page may run only its own scripts and may not be framed (clickjacking), and nothing is sniffed
 * into another type than the one declared (a JSON answer or an exported file quoting a design's
 * text must never run as HTML).
 */
import type { FastifyInstance } from 'fastify';

/** The built app loads only its own scripts, styles, fonts and workers; it fetches only this origin. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // React and the canvas libraries set inline style attributes and may add <style> elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html')) {
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      // For browsers that predate frame-ancestors.
      reply.header('x-frame-options', 'DENY');
    }
    return payload;
  });
}
