import type { Issue } from '@stagecraft/ir';

export interface SimulateOptions {
  /** Keep the per-instruction timeline and the memory curves (default true). */
  keepTimeline?: boolean;
}

export type SimulationResult =
  | { ok: true; sim: Simulation }
  | { ok: false; errors: Issue[]; deadlock?: Deadlock };

export interface Simulation {
  /** End of the last instruction of any kind (all devices start at 0). */
  makespanMs: number;
  /**
   * Σ idle compute / (devices × makespan) over the devices the design uses (a GPU of the cluster
   * that no group holds is not a bubble): the "total" convention, (p−1)/(m+p−1) for 1F1B.
   */
  bubbleRatio: number;
  /** Σ idle / Σ busy: Megatron's convention relative to the ideal time, (p−1)/m for 1F1B. */
  bubbleOverIdeal: number;
  /** Instructions, counting each member of an overlapped unit. */
  ops: number;
  /** Every device of plan.devices, sorted by device. */
  devices: DeviceMetrics[];
  /** One event per executed instruction (an overlapped unit is one event with its members), by start time. */
  timeline?: TimelineEvent[];
  /** Per device, allocated bytes over time as a step function: each point holds from its time on. */
  memory?: { device: number; points: [timeMs: number, bytes: number][] }[];
  /**
   * Σ over devices of the time during which communication of that device is in flight and none of
   * its compute is running (docs/cost-model.md, "Communication, memory and the simulator", says
   * which intervals count as in flight). Replicas of a group lowered once count each.
   */
  exposedCommMs: number;
  /** exposedCommMs by kind (SEND/RECV, ALL_REDUCE, …); an interval counts for every kind in flight. Real clusters only. */
  exposedCommByKindMs?: Record<string, number>;
  /** Model FLOPs utilisation, when the plan gives modelFlopsPerStep and the cluster a GPU. */
  mfu?: number;
  /** Predictions the user should see, e.g. a device out of memory. */
  warnings?: string[];
  /** plan.tokensPerStep / step time, when the plan gives tokensPerStep and the makespan is positive. */
  tokensPerSecond?: number;
}

export interface DeviceMetrics {
  device: number;
  /** Σ durations of compute instructions (an overlapped unit once). */
  busyMs: number;
  /** makespan − busy. */
  idleMs: number;
  /** Start of the device's first compute instruction (0 when it has none). */
  firstStartMs: number;
  /** End of the device's last compute instruction (0 when it has none). */
  lastEndMs: number;
  /** (lastEnd − firstStart) − busy: the bubble inside the device's own span (ZB-H2's convention). */
  spanBubbleMs: number;
  /** Peak of allocated bytes, parameters included. */
  peakMemoryBytes: number;
  /** Peak of allocated bytes above the device's resident training state (staticBytes, else paramBytes). */
  peakActivationBytes: number;
  /** Time with this device's communication in flight and none of its compute running. */
  exposedCommMs?: number;
  /** Weights + gradients + optimizer states the device holds all step. */
  staticBytes?: number;
  /** Peak memory over the GPU's memory. */
  oom?: boolean;
}

export interface TimelineEvent {
  device: number;
  stream: string;
  id: string;
  op: string;
  startMs: number;
  endMs: number;
  tags: Record<string, number | string>;
  /** Member ids of an overlapped unit. */
  members?: string[];
  /** SEND / RECV: the other device. */
  peer?: number;
  /** SEND / RECV, collectives, OFFLOAD / RELOAD: bytes moved. */
  bytes?: number;
}

/** Where an instruction lives, by device number and stream name. */
export interface InstructionRef {
  device: number;
  stream: string;
  instruction: string;
}

/** The first unfinished instruction of one stream when the simulation ran out of events. */
export interface StuckInstruction extends InstructionRef {
  /** Path into the plan, e.g. `devices[1].streams[0].instructions[4]`. */
  path: string;
  /**
   * What it is blocked on: an id in its `waits` that never finished, the SEND its RECV needs, or
   * a member of its collective that never reached it. The blocker sits on the stream of the next
   * entry of a cycle (possibly behind that entry's instruction).
   */
  waitsFor: (InstructionRef & { reason: 'wait' | 'send' | 'collective' }) | null;
}

export interface Deadlock {
  /** Per device, per stream, the first unfinished instruction. */
  stuck: StuckInstruction[];
  /** One wait cycle: each entry is blocked by something on the stream of the next, the last by the first's. */
  cycle: StuckInstruction[];
}
