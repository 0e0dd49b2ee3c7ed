import { describe, expect, it } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { itemRefusal } from './itemApplies.ts';

describe('which palette items can apply to an op', () => {
  const base = example('1f1b-p4-m8');
  const design = {
    ...base,
    cluster: { kind: 'ideal' as const, devices: 8 },
    directives: [
      {
        op: 'schedule' as const,
        builder: '1f1b' as const,
        microbatches: 4,
        groups: [
          [0, 1],
          [2, 3],
          [4, 5],
          [6, 7],
        ],
      },
      { op: 'shard_tensor' as const, filter: { PP: 1 }, devices: [2, 3] },
    ],
  };
  const { dag } = computed(design);
  const idOf = (pp: number) => dag.nodes.find((n) => n.op === 'F' && dag.blocks[n.block]?.tags.PP === pp)!.id;

  it('refuses a second shard tensor on a region already tensor parallel, naming it and its devices', () => {
    const reason = itemRefusal('shard_tensor', dag, idOf(1));
    expect(reason).toMatch(
      /^shard tensor: .* is already tensor parallel on devices 2, 3; edit the shard_tensor directive/,
    );
  });

  it('lets shard tensor apply to a region that is not, and leaves other items alone', () => {
    expect(itemRefusal('shard_tensor', dag, idOf(0))).toBeNull();
    expect(itemRefusal('recompute', dag, idOf(1))).toBeNull();
    expect(itemRefusal('shard_tensor', dag, 'no.such.op')).toBeNull();
  });
});
