/**
 * What a client sees at the HTTP level, over a real loopback socket: a body too large, a request
 * that stalls and requests Node's parser refuses all get an answer the client can read, in the
 * API's error shape.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestApp, testApp } from '../test/harness.ts';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await testApp({ limits: { bodyBytes: 64 * 1024, requestMs: 1_000 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => t.close());

/** Sends `text` as it is on a fresh connection; everything the server answers until it closes (or 5 s). */
function raw(text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => socket.destroy(), 5_000);
    socket.on('data', (c) => {
      answer += c.toString();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on('error', () => undefined);
    socket.write(text);
  });
}

function parsed(answer: string): {
  status: number;
  type: string;
  body: { error: { path: string; message: string } };
} {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return {
    status: Number(head.split(' ')[1]),
    type: /content-type: ([^\r]*)/i.exec(head)?.[1] ?? '',
    body: JSON.parse(body) as { error: { path: string; message: string } },
  };
}

describe('the HTTP transport', () => {
  test('a body over the limit gets a 413 the client reads, not a broken pipe', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/compile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"design": "${'x'.repeat(8 * 1024 * 1024)}"}`,
    });
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/is larger than the limit of 64 KiB$/);
  });

  test('a client that asks first (Expect: 100-continue) gets the 413 without sending its body', async () => {
    const answer = await new Promise<{ status: number; body: string; continued: boolean }>(
      (resolve, reject) => {
        let continued = false;
        const req = request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/compile',
          headers: {
            'content-type': 'application/json',
            'content-length': 8 * 1024 * 1024,
            expect: '100-continue',
          },
        });
        req.on('continue', () => {
          continued = true;
          req.end(Buffer.alloc(8 * 1024 * 1024, 32));
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c) => {
            body += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, continued }));
        });
        req.on('error', reject);
      },
    );
    expect(answer.continued).toBe(false);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.message).toMatch(/^the request body \(8,388,608 bytes\) is larger/);
  });

  test('a request body that stalls gets a 408 in the error shape, in about the request time limit', async () => {
    const t0 = performance.now();
    const answer = await raw(
      'POST /api/compile HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"design":',
    );
    const ms = performance.now() - t0;
    const res = parsed(answer);
    expect(res.status).toBe(408);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body.error.message).toBe('the request did not arrive in full within 1,000 ms');
    expect(ms).toBeLessThan(4_000);
  });

  test("requests Node's HTTP parser refuses get JSON in the error shape: bad Content-Length, huge headers", async () => {
    const badLength = parsed(
      await raw('POST /api/compile HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n'),
    );
    expect(badLength.status).toBe(400);
    expect(badLength.body.error).toEqual({
      path: '',
      message: 'the content-length header is not a valid length',
    });
    const huge = parsed(
      await raw(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(huge.status).toBe(431);
    expect(huge.type).toMatch(/^application\/json/);
    expect(huge.body.error.path).toBe('');
  });
});
