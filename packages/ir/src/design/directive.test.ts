import { describe, expect, it } from 'vitest';
import { parseDirective } from './design.ts';

describe('replicate fields', () => {
  it("accepts Piper's fields unchanged", () => {
    const r = parseDirective(
      {
        op: 'replicate',
        filter: { PP: 0 },
        devices: [0, 1],
        reduce_stream: 'dp_stream',
        gather_stream: 'gather_stream',
        bucket_size: 1000,
        shard_grads: true,
        shard_params: true,
      },
      ['directives', 2],
    );
    expect(r.errors).toEqual([]);
  });

  it('refuses ZeRO stages that contradict each other, naming the field', () => {
    const r = parseDirective(
      { op: 'replicate', filter: {}, devices: [0, 1], shard_params: true, shard_grads: false },
      ['directives', 2],
    );
    expect(r.errors).toEqual([
      {
        path: 'directives[2].shard_grads',
        message: 'shard_params (ZeRO-3) shards the gradients too; drop shard_grads: false',
      },
    ]);
    const r2 = parseDirective(
      { op: 'replicate', filter: {}, devices: [0, 1], shard_grads: true, shard_optimizer: false },
      ['directives', 0],
    );
    expect(r2.errors.map((e) => e.path)).toEqual(['directives[0].shard_optimizer']);
  });

  it('refuses a field Piper does not have, such as stream on replicate', () => {
    const r = parseDirective({ op: 'replicate', filter: {}, devices: [0], stream: 's' }, ['directives', 1]);
    expect(r.errors.length).toBe(1);
    expect(r.errors[0]!.path).toBe('directives[1].stream');
  });
});

describe('shard_sequence fields', () => {
  it('accepts a mesh axis and either form', () => {
    for (const form of ['ring', 'all_gather'])
      expect(
        parseDirective({ op: 'shard_sequence', filter: {}, axis: 'cp', form }, ['directives', 1]).errors,
      ).toEqual([]);
  });

  it('refuses an unknown form and a directive with neither devices nor axis, naming the field', () => {
    const r = parseDirective({ op: 'shard_sequence', filter: {}, axis: 'cp', form: 'ulysses' }, [
      'directives',
      4,
    ]);
    expect(r.errors.map((e) => e.path)).toEqual(['directives[4].form']);
    expect(r.errors[0]!.message).toMatch(/ring.*all_gather/);
    const r2 = parseDirective({ op: 'shard_sequence', filter: {} }, ['directives', 2]);
    expect(r2.errors).toEqual([
      {
        path: 'directives[2].devices',
        message: 'required: the device group ("devices") or the mesh axes ("axis") it runs over',
      },
    ]);
  });
});
