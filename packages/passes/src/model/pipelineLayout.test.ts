import { describe, expect, it } from 'vitest';
import { formatPipelineLayout, parsePipelineLayout } from './pipelineLayout.ts';

function stages(text: string): string[] {
  const r = parsePipelineLayout(text);
  if (!r.ok) throw new Error(r.message);
  return r.stages.map((s) => s.join(''));
}

describe("Megatron-LM's pipeline layout string", () => {
  it('DeepSeek-V3 PP16 × VPP2 "Et*3|(tt|)*29,m|L" is 32 stages', () => {
    const s = stages('Et*3|(tt|)*29,m|L');
    expect(s).toHaveLength(32);
    expect(s[0]).toBe('Ettt');
    expect(s.slice(1, 30).every((x) => x === 'tt')).toBe(true);
    expect(s[30]).toBe('m');
    expect(s[31]).toBe('L');
  });

  it('commas are cosmetic, x*n repeats a symbol, (…)*n a group that may hold stage boundaries', () => {
    expect(stages('E,t*2|t,t|L')).toEqual(['Ett', 'tt', 'L']);
    expect(stages('E|(t|)*3,L')).toEqual(['E', 't', 't', 't', 'L']);
    expect(stages('((t)*2|)*2')).toEqual(['tt', 'tt', '']);
  });

  it('empty stages parse (the model refuses them, with the stage named)', () => {
    expect(stages('E||t|L')).toEqual(['E', '', 't', 'L']);
  });

  it('bad symbols, counts and parentheses are errors naming the character', () => {
    expect(parsePipelineLayout('Etx|L')).toEqual({
      ok: false,
      message: 'unknown symbol "x" at character 3 (E embedding, t layer, m MTP, L loss, | stage boundary)',
    });
    expect(parsePipelineLayout('Et*|L')).toMatchObject({
      ok: false,
      message: expect.stringContaining('repeat count'),
    });
    expect(parsePipelineLayout('E(tt|L')).toMatchObject({
      ok: false,
      message: expect.stringContaining('unclosed "("'),
    });
    expect(parsePipelineLayout('Ett)|L')).toMatchObject({
      ok: false,
      message: expect.stringContaining('unmatched ")"'),
    });
    expect(parsePipelineLayout('t*0')).toMatchObject({
      ok: false,
      message: expect.stringContaining('at least 1'),
    });
    expect(parsePipelineLayout('(t)*100000000')).toMatchObject({
      ok: false,
      message: expect.stringContaining('more than'),
    });
  });

  it('formats back to the compact form', () => {
    const r = parsePipelineLayout('Et*3|(tt|)*2,m|L');
    expect(r.ok && formatPipelineLayout(r.stages)).toBe('E,t*3|t*2|t*2|m|L');
  });
});
