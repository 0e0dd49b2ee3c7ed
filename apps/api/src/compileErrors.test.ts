/** Every kind of bad input the compiler reports surfaces from the API as a 400 (or 413) with its path. */
import type { Design } from '@stagecraft/ir';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorOf, post, type TestApp, testApp } from '../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ limits: { maxOps: 5_000 } });
});
afterAll(async () => t.close());

const costs = { F: 1, BI: 1, BW: 1 };
function design(
  stages: number,
  directives: unknown[],
  extra: Partial<Record<keyof Design, unknown>> = {},
): unknown {
  return {
    format: 'stagecraft/design@1',
    name: 'bad input',
    model: { kind: 'synthetic', stages, costs },
    cluster: { kind: 'ideal', devices: stages },
    directives,
    ...extra,
  };
}
const schedule = (o: Record<string, unknown> = {}) => ({
  op: 'schedule',
  builder: '1f1b',
  microbatches: 8,
  ...o,
});
const place = (filter: Record<string, unknown>, devices: number[]) => ({ op: 'place', filter, devices });
const split = (n: number, filter = {}) => ({ op: 'split', filter, dim_name: 'MB', num_microbatches: n });
const order = (...slots: Record<string, unknown>[]) => ({ op: 'order', filters: slots.map((f) => [f]) });

const cases: [string, unknown, string, RegExp][] = [
  [
    'a transformer model on the ideal cluster, which cannot time FLOPs',
    design(4, [], { model: { kind: 'transformer', preset: 'llama3-8b', annotate: { PP: 4 } } }),
    'design.cluster.kind',
    /ideal cluster has no GPU/,
  ],
  [
    'device groups that partly overlap',
    design(2, [place({ PP: 0 }, [0, 1]), place({ PP: 1 }, [1, 2])], {
      cluster: { kind: 'ideal', devices: 4 },
    }),
    'design.directives[1].devices',
    /partly overlap/,
  ],
  [
    'a schedule on a model without PP tags',
    design(1, [schedule()], { model: { kind: 'synthetic', blocks: [{ tags: {}, ...costs }] } }),
    'design.directives[0]',
    /tagged PP/,
  ],
  [
    'chunks a builder does not run',
    design(4, [schedule({ builder: 'zbv', chunks: 3 })]),
    'design.directives[0].chunks',
    /2 chunks/,
  ],
  [
    'groups that do not match ranks',
    design(4, [schedule({ ranks: 2, groups: [[0], [1], [2]] })]),
    'design.directives[0].groups',
    /3 device groups for 2 ranks/,
  ],
  [
    'a group device outside the cluster',
    design(4, [schedule({ groups: [[0], [1], [2], [7]] })]),
    'design.directives[0].groups[3][0]',
    /device 7 is outside/,
  ],
  [
    'more ranks than devices',
    design(4, [schedule({ ranks: 8 })]),
    'design.directives[0].ranks',
    /outside the cluster/,
  ],
  [
    'stages that do not divide into ranks',
    design(6, [schedule({ ranks: 4 })]),
    'design.directives[0]',
    /do not divide/,
  ],
  [
    'microbatches a builder refuses',
    design(8, [schedule({ builder: 'interleaved-1f1b', chunks: 2, microbatches: 9, ranks: 4 })]),
    'design.directives[0].microbatches',
    /needs a multiple of 2/,
  ],
  [
    'a second split along the same dimension',
    design(2, [split(2), split(2)]),
    'design.directives[1].dim_name',
    /already split/,
  ],
  [
    'a filter on a tag value no block has',
    design(2, [split(2, { PP: 5 })]),
    'design.directives[0].filter.PP',
    /no block has tag PP=5/,
  ],
  [
    'a filter on a tag no block has',
    design(2, [place({ EP: 0 }, [0])]),
    'design.directives[0].filter.EP',
    /no block has tag EP/,
  ],
  [
    'a split index out of range',
    design(2, [split(2), place({ MB: 5 }, [0])]),
    'design.directives[1].filter.MB',
    /MB has 2 indices/,
  ],
  [
    'split_backward of a forward',
    design(2, [{ op: 'split_backward', filter: { PASS: 'F' } }]),
    'design.directives[0].filter.PASS',
    /not F/,
  ],
  ['a device listed twice', design(2, [place({}, [0, 0])]), 'design.directives[0].devices', /listed twice/],
  [
    'a device outside the cluster',
    design(2, [place({}, [0, 5])]),
    'design.directives[0].devices[1]',
    /outside the cluster/,
  ],
  [
    'overlapping device groups',
    design(2, [place({ PP: 0 }, [0, 1]), place({ PP: 1 }, [1])]),
    'design.directives[1].devices',
    /partly overlap/,
  ],
  [
    'an op placed nowhere',
    design(2, [place({ PP: 0 }, [0])]),
    'design.directives',
    /not placed on any device/,
  ],
  [
    'groups of different sizes exchanging data',
    design(3, [place({ PP: 0 }, [0]), place({ PP: 1 }, [1, 2]), place({ PP: 2 }, [0])]),
    'design.directives',
    /same size/,
  ],
  [
    'an order across device groups',
    design(2, [
      place({ PP: 0 }, [0]),
      place({ PP: 1 }, [1]),
      order({ PP: 0, PASS: 'F' }, { PP: 1, PASS: 'F' }),
    ]),
    'design.directives[2].filters[1][0]',
    /stays on one device group/,
  ],
  [
    'an op ordered twice',
    design(2, [place({}, [0]), order({ PP: 0, PASS: 'F' }, { PP: 0, PASS: 'F' })]),
    'design.directives[1].filters[1][0]',
    /already ordered/,
  ],
  [
    'an order against the data dependencies',
    design(2, [place({}, [0]), order({ PP: 0, PASS: 'B' }, { PP: 0, PASS: 'F' })]),
    'design.directives[1].filters[0]',
    /cycle/,
  ],
  [
    'shard_tensor and replicate on the same region',
    design(
      2,
      [
        place({ PP: 0 }, [0, 1]),
        place({ PP: 1 }, [2, 3]),
        { op: 'replicate', filter: { PP: 0 }, devices: [0, 1] },
        { op: 'shard_tensor', filter: { PP: 0 }, devices: [0, 1] },
      ],
      { cluster: { kind: 'ideal', devices: 4 } },
    ),
    'design.directives[3].filter',
    /cannot cover the same region/,
  ],
  [
    'an unknown directive',
    design(2, [{ op: 'plcae', filter: {} }]),
    'design.directives[0].op',
    /unknown directive/,
  ],
  [
    'a missing directive field',
    design(2, [{ op: 'place', filter: {} }]),
    'design.directives[0].devices',
    /required/,
  ],
  [
    'an unknown builder',
    design(2, [schedule({ builder: '2f2b' })]),
    'design.directives[0].builder',
    /unknown builder/,
  ],
  [
    'a negative cost',
    design(2, [], { model: { kind: 'synthetic', stages: 2, costs: { ...costs, F: -1 } } }),
    'design.model.costs.F',
    /./,
  ],
  [
    'an unknown cluster kind',
    design(2, [], { cluster: { kind: 'cloud' } }),
    'design.cluster.kind',
    /expected/,
  ],
  ['a design without a name', design(2, [], { name: '' }), 'design.name', /./],
];

describe('bad designs on POST /api/compile', () => {
  test.each(cases)('%s is a 400 at its path', async (_what, d, path, message) => {
    const res = await post(t.app, '/api/compile', { design: d });
    expect(res.statusCode).toBe(400);
    const e = errorOf(res);
    expect(e.path).toBe(path);
    expect(e.message).toMatch(message);
    expect(res.body).not.toMatch(/\bat .*\.ts:\d+/);
  });

  test('several problems come back together, the first in error', async () => {
    const res = await post(t.app, '/api/compile', {
      design: design(2, [{ op: 'plcae' }, { op: 'place', filter: {} }]),
    });
    const e = errorOf(res);
    expect(e.all.map((i) => i.path)).toEqual(['design.directives[0].op', 'design.directives[1].devices']);
    expect(e.path).toBe('design.directives[0].op');
  });

  test('a schedule over the op limit is a 413 naming the limit and the size', async () => {
    const res = await post(t.app, '/api/compile', { design: design(4, [schedule({ microbatches: 1000 })]) });
    expect(res.statusCode).toBe(413);
    const e = errorOf(res);
    expect(e.path).toBe('design.directives[0].microbatches');
    expect(e.message).toMatch(/about [\d,]+ ops, over the limit of 5,000/);
  });

  test('a split over the op limit is a 413 naming the limit and the size', async () => {
    const res = await post(t.app, '/api/compile', { design: design(2, [split(5000)]) });
    expect(res.statusCode).toBe(413);
    expect(errorOf(res)).toMatchObject({
      path: 'design.directives[0].num_microbatches',
      message: expect.stringMatching(/ops, over the limit of 5,000/),
    });
  });

  test('a model or cluster too large for the op limit is a 413 before it is compiled', async () => {
    const stages = await post(t.app, '/api/compile', { design: design(1_000_000_000, []) });
    expect(stages.statusCode).toBe(413);
    expect(errorOf(stages)).toEqual({
      path: 'design.model.stages',
      message: '1,000,000,000 blocks make at least 2,000,000,000 ops, over the limit of 5,000',
      all: expect.any(Array),
    });
    const devices = await post(t.app, '/api/compile', {
      design: design(2, [], { cluster: { kind: 'ideal', devices: 1e9 } }),
    });
    expect(devices.statusCode).toBe(413);
    expect(errorOf(devices).path).toBe('design.cluster.devices');
  });

  test('export reports the same problems at the same paths', async () => {
    const res = await post(t.app, '/api/export', {
      design: design(2, [place({ PP: 0 }, [0])]),
      format: 'plan',
    });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).path).toBe('design.directives');
  });
});
