import { describe, expect, it } from 'vitest';
import { parseDesign, parseDesignText, UNTITLED_DESIGN } from './design.ts';

const unnamed = {
  format: 'stagecraft/design@1',
  model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 } },
  cluster: { kind: 'ideal', devices: 2 },
  directives: [],
};

describe('a design name', () => {
  it('may be left out: the design is then untitled, or named as its reader says', () => {
    const plain = parseDesign(unnamed);
    expect(plain.ok && plain.design.name).toBe(UNTITLED_DESIGN);
    const fromFile = parseDesignText(JSON.stringify(unnamed), { defaultName: 'pipeline' });
    expect(fromFile.ok && fromFile.design.name).toBe('pipeline');
  });

  it('a given name wins over the default, and a given name may not be empty', () => {
    const named = parseDesign({ ...unnamed, name: 'mine' }, { defaultName: 'pipeline' });
    expect(named.ok && named.design.name).toBe('mine');
    const empty = parseDesign({ ...unnamed, name: '' });
    expect(empty.ok).toBe(false);
    expect(!empty.ok && empty.errors.map((e) => e.path)).toEqual(['name']);
  });
});
