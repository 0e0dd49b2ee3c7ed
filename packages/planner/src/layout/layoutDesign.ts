/**
 * A layout written as a design the designer opens: the model cut into pp × vp stages, one
 * `schedule` over pp ranks each on a mesh of its dp × tp GPUs (Megatron-LM's order: tp innermost,
 * then ep inside dp, pipeline stages outermost, so a stage's GPUs are contiguous and a tp group is
 * one node), tensor and expert sharding over their axes, data parallelism at the ZeRO level, and
 * recompute or offload of every block.
 */
import type { Design, Directive, MeshSpec, ScheduleBuilderName } from '@stagecraft/ir';
import { getBuilder } from '@stagecraft/passes';
import type { Layout } from '../request.ts';

export function layoutDesign(base: Design, l: Layout): Design | string {
  const model = base.model;
  if (model.kind !== 'transformer') return 'the layout search lays out transformer models';
  const builder = getBuilder(l.builder as ScheduleBuilderName);
  const problems = builder.check({
    builder: l.builder as ScheduleBuilderName,
    ranks: l.pp,
    microbatches: l.microbatches,
    chunks: l.vp,
    virtualStages: l.pp * l.vp,
  });
  if (problems.length > 0) return `${l.builder}: ${problems[0]!.message}`;
  const outer = l.dp / l.ep;
  const axes: [string, number][] = (
    [
      ['dp', outer],
      ['ep', l.ep],
      ['tp', l.tp],
    ] as [string, number][]
  ).filter(([, n]) => n > 1);
  const perStage = l.dp * l.tp;
  const groups: (number[] | MeshSpec)[] = Array.from({ length: l.pp }, (_, r) =>
    axes.length === 0
      ? [r]
      : { axes: axes.map(([a]) => a), shape: axes.map(([, n]) => n), start: r * perStage },
  );
  const { cuts: _cuts, layout: _layout, ...annotate } = model.annotate ?? {};
  const directives: Directive[] = [
    {
      op: 'schedule',
      builder: l.builder as ScheduleBuilderName,
      ranks: l.pp,
      microbatches: l.microbatches,
      ...(l.vp !== builder.defaultChunks ? { chunks: l.vp } : {}),
      groups,
      stream: 'pp',
    },
  ];
  if (l.tp > 1) directives.push({ op: 'shard_tensor', filter: { TP: '*' }, axis: 'tp', stream: 'tp' });
  if (l.ep > 1) directives.push({ op: 'shard', filter: { EP: '*' }, axis: 'ep', stream: 'ep' });
  const dpAxes = axes.map(([a]) => a).filter((a) => a !== 'tp');
  if (l.dp > 1)
    directives.push({
      op: 'replicate',
      filter: {},
      axis: dpAxes.length === 1 ? dpAxes[0]! : dpAxes,
      reduce_stream: 'dp',
      ...(l.zero >= 1 ? { shard_optimizer: true } : {}),
      ...(l.zero >= 2 ? { shard_grads: true } : {}),
      ...(l.zero >= 3 ? { shard_params: true } : {}),
    } as Directive);
  if (l.recompute) directives.push({ op: 'recompute', filter: {} });
  if (l.offload) directives.push({ op: 'offload', filter: {} });
  return {
    format: 'stagecraft/design@3',
    name: layoutName(base, l),
    model: { ...model, microbatchSize: l.microbatchSize, annotate: { ...annotate, PP: l.pp * l.vp } },
    cluster: base.cluster,
    directives,
  };
}

export function layoutName(base: Design, l: Layout): string {
  const model = base.model.kind === 'transformer' ? (base.model.preset ?? 'transformer') : 'model';
  const parts = [`TP${l.tp}`, `PP${l.pp}${l.vp > 1 ? `×${l.vp}` : ''}`, `DP${l.dp}`];
  if (l.ep > 1) parts.push(`EP${l.ep}`);
  const extras = [`${l.builder}`, `m=${l.microbatches}`, `mbs=${l.microbatchSize}`, `ZeRO-${l.zero}`];
  if (l.recompute) extras.push('recompute');
  if (l.offload) extras.push('offload');
  return `${model} ${parts.join(' × ')}, ${extras.join(', ')}`;
}
