import { describe, expect, it } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { designFragment, linkPayload, readDesignLink } from './designLink.ts';

describe('a link that carries the design', () => {
  it('round-trips a design through the fragment, compressed and URL-safe', async () => {
    const design = example('llama3.1-405b-tp8-pp16-dp64');
    const fragment = await designFragment(design);
    expect(fragment).toMatch(/^d=[A-Za-z0-9_-]+$/);
    expect(fragment.length).toBeLessThan(JSON.stringify(design).length);
    const read = await readDesignLink(linkPayload(`#${fragment}`)!);
    expect(read).toEqual({ ok: true, design });
  });

  it('reads an old format through the migrations', async () => {
    const old = {
      format: 'stagecraft/design@1',
      name: 'old link',
      model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 } },
      cluster: { kind: 'ideal', devices: 2 },
      directives: [{ op: 'schedule', builder: '1f1b', microbatches: 4 }],
    };
    const bytes = new TextEncoder().encode(JSON.stringify(old));
    const deflated = new Uint8Array(
      await new Response(
        new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw')),
      ).arrayBuffer(),
    );
    const payload = Buffer.from(deflated).toString('base64url');
    const read = await readDesignLink(payload);
    if (!read.ok) throw new Error(read.error);
    expect(read.design.name).toBe('old link');
  });

  it('refuses a corrupt link saying what is wrong', async () => {
    const fragment = await designFragment(example('1f1b-p4-m8'));
    const payload = linkPayload(fragment)!;
    expect(await readDesignLink('not base64!')).toEqual({
      ok: false,
      error: 'the link carries no design: its #d= part is not base64url',
    });
    expect(await readDesignLink(payload.slice(0, payload.length / 2))).toEqual({
      ok: false,
      error: 'the link’s design is corrupt: it does not inflate (cut short or edited?)',
    });
    const notJson = Buffer.from(
      await new Response(
        new Blob([new TextEncoder().encode('{nope')])
          .stream()
          .pipeThrough(new CompressionStream('deflate-raw')),
      ).arrayBuffer(),
    ).toString('base64url');
    expect(await readDesignLink(notJson)).toEqual({
      ok: false,
      error: 'the link’s design is corrupt: it inflates to text that is not JSON',
    });
    const invalid = await designFragment({
      ...example('1f1b-p4-m8'),
      cluster: { kind: 'ideal', devices: -1 },
    } as never);
    const r = await readDesignLink(linkPayload(invalid)!);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/^the link’s design is not a valid design: cluster\.devices: /);
  });

  it('tells a design link from a saved design’s id', () => {
    expect(linkPayload('#design=abc-123')).toBeNull();
    expect(linkPayload('')).toBeNull();
    expect(linkPayload('#d=abc')).toBe('abc');
  });
});
