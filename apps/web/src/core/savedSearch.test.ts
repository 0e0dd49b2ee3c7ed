import { describe, expect, it } from 'vitest';
import { searchSaved } from './savedSearch.ts';

const list = [
  { id: 'zb-h1-p4-m8', name: 'ZB-H1, p=4, m=8' },
  { id: 'my-run-1a2b3c', name: '1F1B, p=4, m=8' },
  { id: 'dualpipev', name: 'DualPipeV on DeepSeek-V3' },
];

describe('searching saved designs', () => {
  it('lists every design for an empty query', () => {
    expect(searchSaved(list, '  ')).toHaveLength(3);
  });

  it('matches every word of the query in the name or the id, in any case and order', () => {
    expect(searchSaved(list, 'h1 zb').map((d) => d.id)).toEqual(['zb-h1-p4-m8']);
    expect(searchSaved(list, 'deepseek').map((d) => d.id)).toEqual(['dualpipev']);
    expect(searchSaved(list, 'my-run').map((d) => d.id)).toEqual(['my-run-1a2b3c']);
    expect(searchSaved(list, 'm=8').map((d) => d.id)).toEqual(['zb-h1-p4-m8', 'my-run-1a2b3c']);
  });

  it('finds nothing when one word matches nothing', () => {
    expect(searchSaved(list, 'zb llama')).toEqual([]);
  });
});
