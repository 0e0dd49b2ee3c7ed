/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a malformed Content-Length,
 * headers too large, a request that stalls) answered in the API's error shape, so a client
 * reads `{"error": {path, message}}` from every 4xx. And a body too large is refused in a way
 * the client can read: before it is sent when the client asks first (Expect: 100-continue, as
 * curl does), and otherwise after the rest of it is read and dropped, so the client is not cut
 * off mid-upload (a broken pipe) before it reads the 413.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from './errors.ts';
import { formatBytes } from './limits.ts';

/** What the parser's error codes mean to a client. */
function describe(code: string | undefined, requestMs: number): { status: number; message: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        message: `the request did not arrive in full within ${requestMs.toLocaleString('en-US')} ms`,
      };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'the request headers are larger than the limit of 16 KiB' };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { status: 400, message: 'the content-length header is not a valid length' };
    default:
      return { status: 400, message: `the request is not valid HTTP (${code ?? 'unknown error'})` };
  }
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Content Too Large',
  431: 'Request Header Fields Too Large',
};

/** Fastify's `clientErrorHandler`: answer on the raw socket, then close it. */
export function clientErrorHandler(requestMs: number) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || socket.destroyed) return;
    const { status, message } = describe(err.code, requestMs);
    const body = JSON.stringify(errorBody([{ path: '', message }]));
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroySoon();
  };
}

/**
 * The `checkContinue` listener: a client that asks before sending a body over the limit gets
 * the 413 at once and never sends it; any other gets its 100 Continue and goes on as usual.
 */
export function continueUnlessTooLarge(
  bodyBytes: number,
  next: (req: IncomingMessage, res: ServerResponse) => void,
) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const size = Number(req.headers['content-length']);
    if (Number.isFinite(size) && size > bodyBytes) {
      const message = `the request body (${size.toLocaleString('en-US')} bytes) is larger than the limit of ${formatBytes(bodyBytes)}`;
      const body = JSON.stringify(errorBody([{ path: '', message }]));
      res.writeHead(413, {
        'content-type': 'application/json; charset=utf-8',
        'x-content-type-options': 'nosniff',
        'content-length': Buffer.byteLength(body),
        connection: 'close',
      });
      res.end(body);
      return;
    }
    res.writeContinue();
    next(req, res);
  };
}

/** Bytes of an oversized body read and dropped so its sender can read the 413; past them the connection closes. */
export const DRAIN_BYTES = 64 * 1024 * 1024;

/** Resolves once the rest of the body is read (dropped), or after `DRAIN_BYTES` or `ms`. */
export function drainBody(req: IncomingMessage, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded || req.destroyed) return resolve();
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('error', done);
      req.off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_BYTES) done();
    };
    const timer = setTimeout(done, ms);
    req.on('data', onData);
    req.on('end', done);
    req.on('error', done);
    req.on('close', done);
    req.resume();
  });
}
