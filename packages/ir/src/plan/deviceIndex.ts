/**
 * Device numbers → device plans (indices into plan.devices). A plan lists each device it runs
 * once, and a group lowered once (`replicas`) stands for its replicas, whose numbers resolve to
 * the same device plan. Numbers are usually dense, so an array answers; a Map only where not.
 */
import type { IssueList } from './issueList.ts';

/** What the index reads of a device plan: its number and the replicas it stands for. */
export interface NumberedDevice {
  readonly device: number;
  readonly replicas?: readonly number[];
}

export class DeviceIndex {
  private constructor(
    private readonly dense: Int32Array | undefined,
    private readonly sparse: Map<number, number> | undefined,
  ) {}

  /** The index of `plan`, or undefined (with the issues) when a device appears twice. */
  static of(
    plan: { readonly devices: readonly NumberedDevice[] },
    issues: IssueList,
  ): DeviceIndex | undefined {
    const before = issues.count;
    const index = DeviceIndex.build(plan.devices, issues);
    return issues.count === before ? index : undefined;
  }

  /**
   * The index of a plan read as it is, for readers that do not validate (measured runs, the web's
   * timeline): a device listed twice is the first plan's.
   */
  static firstOf(plan: { readonly devices: readonly NumberedDevice[] }): DeviceIndex {
    return DeviceIndex.build(plan.devices, undefined);
  }

  private static build(devs: readonly NumberedDevice[], issues: IssueList | undefined): DeviceIndex {
    let maxDevice = 0;
    for (const dp of devs) {
      if (dp.device > maxDevice) maxDevice = dp.device;
      for (const r of dp.replicas ?? []) if (r > maxDevice) maxDevice = r;
    }
    const isDense = maxDevice <= 4 * devs.length + 1024;
    const index = new DeviceIndex(
      isDense ? new Int32Array(maxDevice + 1).fill(-1) : undefined,
      isDense ? undefined : new Map(),
    );
    for (let di = 0; di < devs.length; di++) {
      const dp = devs[di]!;
      index.put(dp.device, di, issues);
      for (const r of dp.replicas ?? []) index.put(r, di, issues);
    }
    return index;
  }

  /** The device plan running device number d, or −1 if the plan has none. */
  indexOf(d: number): number {
    if (this.dense !== undefined) return d >= 0 && d < this.dense.length ? this.dense[d]! : -1;
    return this.sparse!.get(d) ?? -1;
  }

  private put(d: number, di: number, issues: IssueList | undefined): void {
    if (this.indexOf(d) >= 0) issues?.add(`devices[${di}].device`, `device ${d} appears twice`);
    else if (this.dense !== undefined) this.dense[d] = di;
    else this.sparse!.set(d, di);
  }
}
