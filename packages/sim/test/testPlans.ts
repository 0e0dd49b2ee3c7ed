/**
 * Test-only helpers to write small plans by hand (not exported from the package).
 */
import type {
  Cluster,
  CollectiveInstruction,
  ComputeInstruction,
  CustomCluster,
  DevicePlan,
  Instruction,
  OverlapInstruction,
  P2PInstruction,
  Plan,
} from '@stagecraft/ir';

/** 2 nodes of 4 GPUs; NVLink 400 GB/s (4e8 bytes/ms), 5 µs; InfiniBand 50 GB/s, 20 µs; 1 PFLOP/s. */
export const TWO_NODES_OF_4: CustomCluster = {
  kind: 'custom',
  nodes: 2,
  gpusPerNode: 4,
  gpu: { peakTflops: 1000, memoryGiB: 80 },
  intraNode: { bandwidthGBps: 400, latencyUs: 5 },
  interNode: { bandwidthGBps: 50, latencyUs: 20 },
};

interface Common {
  waits?: string[];
  tags?: Record<string, number | string>;
}

export function plan(devices: DevicePlan[], opts: { cluster?: Cluster; tokensPerStep?: number } = {}): Plan {
  const p: Plan = {
    format: 'stagecraft/plan@1',
    name: 'test',
    cluster: opts.cluster ?? { kind: 'ideal', devices: Math.max(1, devices.length) },
    groups: devices.map((d) => [d.device]),
    devices,
  };
  if (opts.tokensPerStep !== undefined) p.tokensPerStep = opts.tokensPerStep;
  return p;
}

/** A device; streams in the order given. */
export function device(
  dev: number,
  streams: Record<string, Instruction[]>,
  opts: { paramBytes?: number; stages?: number[] } = {},
): DevicePlan {
  return {
    device: dev,
    group: dev,
    stages: opts.stages ?? [dev],
    paramBytes: opts.paramBytes ?? 0,
    streams: Object.entries(streams).map(([stream, instructions]) => ({ stream, instructions })),
  };
}

export function compute(
  op: ComputeInstruction['op'],
  id: string,
  ms: number | undefined,
  opts: Common & { alloc?: number; free?: number; flops?: number; mb?: number } = {},
): ComputeInstruction {
  const c: ComputeInstruction = { id, op, tags: { ...opts.tags }, waits: opts.waits ?? [] };
  if (opts.mb !== undefined) c.tags.MB = opts.mb;
  if (ms !== undefined) c.ms = ms;
  if (opts.flops !== undefined) c.flops = opts.flops;
  if (opts.alloc !== undefined) c.allocBytes = opts.alloc;
  if (opts.free !== undefined) c.freeBytes = opts.free;
  return c;
}

export function send(
  id: string,
  peer: number,
  transfer: string,
  opts: Common & { bytes?: number } = {},
): P2PInstruction {
  return p2p('SEND', id, peer, transfer, opts);
}

export function recv(
  id: string,
  peer: number,
  transfer: string,
  opts: Common & { bytes?: number } = {},
): P2PInstruction {
  return p2p('RECV', id, peer, transfer, opts);
}

function p2p(
  op: P2PInstruction['op'],
  id: string,
  peer: number,
  transfer: string,
  opts: Common & { bytes?: number },
): P2PInstruction {
  return { id, op, peer, transfer, bytes: opts.bytes ?? 0, tags: opts.tags ?? {}, waits: opts.waits ?? [] };
}

export function collective(
  op: CollectiveInstruction['op'],
  id: string,
  key: string,
  devices: number[],
  bytes: number,
  opts: Common = {},
): CollectiveInstruction {
  return { id, op, collective: key, devices, bytes, tags: opts.tags ?? {}, waits: opts.waits ?? [] };
}

export function overlap(
  id: string,
  members: ComputeInstruction[],
  ms?: number,
  opts: Common = {},
): OverlapInstruction {
  const o: OverlapInstruction = {
    id,
    op: 'OVERLAP',
    members,
    tags: opts.tags ?? {},
    waits: opts.waits ?? [],
  };
  if (ms !== undefined) o.ms = ms;
  return o;
}

/**
 * 1F1B (Megatron's order) on p ranks, stage r on rank r, built by hand: a compute stream, and
 * SEND / RECV on separate streams per direction that the compute waits for. Each F stashes
 * `activationBytes` until its B.
 */
export function oneFOneB(
  p: number,
  m: number,
  costs: { F: number; B: number; activationBytes?: number; bytes?: number },
  cluster?: Cluster,
): Plan {
  const act = costs.activationBytes ?? 0;
  const bytes = costs.bytes ?? 0;
  const devices: DevicePlan[] = [];
  for (let r = 0; r < p; r++) {
    const order: ['F' | 'B', number][] = [];
    const warm = Math.min(m, p - r - 1);
    for (let i = 0; i < warm; i++) order.push(['F', i]);
    for (let i = 0; i < m - warm; i++) order.push(['F', warm + i], ['B', i]);
    for (let i = m - warm; i < m; i++) order.push(['B', i]);
    const comp: Instruction[] = [];
    const sendF: Instruction[] = [];
    const sendB: Instruction[] = [];
    const recvF: Instruction[] = [];
    const recvB: Instruction[] = [];
    for (let i = 0; i < m; i++) {
      if (r > 0) recvF.push(recv(`recvF${i}`, r - 1, `act:${r - 1}->${r}:${i}`, { bytes }));
      if (r < p - 1) recvB.push(recv(`recvB${i}`, r + 1, `grad:${r + 1}->${r}:${i}`, { bytes }));
    }
    for (const [pass, i] of order) {
      if (pass === 'F') {
        comp.push(
          compute('F', `F${i}`, costs.F, {
            mb: i,
            tags: { PP: r },
            alloc: act,
            waits: r > 0 ? [`recvF${i}`] : [],
          }),
        );
        if (r < p - 1)
          sendF.push(send(`sendF${i}`, r + 1, `act:${r}->${r + 1}:${i}`, { bytes, waits: [`F${i}`] }));
      } else {
        comp.push(
          compute('B', `B${i}`, costs.B, {
            mb: i,
            tags: { PP: r },
            free: act,
            waits: r < p - 1 ? [`recvB${i}`] : [],
          }),
        );
        if (r > 0)
          sendB.push(send(`sendB${i}`, r - 1, `grad:${r}->${r - 1}:${i}`, { bytes, waits: [`B${i}`] }));
      }
    }
    devices.push(
      device(
        r,
        { compute: comp, 'send-f': sendF, 'recv-f': recvF, 'send-b': sendB, 'recv-b': recvB },
        { paramBytes: 0 },
      ),
    );
  }
  return plan(devices, cluster ? { cluster } : {});
}
