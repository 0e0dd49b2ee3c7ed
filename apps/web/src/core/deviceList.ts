/**
 * A device list as people write it: runs of three or more consecutive devices as a range, so a
 * group of 128 GPUs reads `0–127`, not 128 numbers running out of its box.
 */
export function deviceListText(devices: readonly number[]): string {
  return deviceListParts(devices).join(', ');
}

/** Parts of a list beyond which a title summarises it: the first two, an ellipsis and the last. */
const LISTED_PARTS = 4;

/**
 * A group's title that stays one short line whatever its size: `devices 0–15`, or, for a group
 * strided across a cluster (Llama 3's dp × tp stage: 64 runs of 8), how many runs of how many and
 * where they start and end: `64 × tp8 groups: devices 0–7, 128–135, …, 8064–8071`. `innerAxis`
 * names the runs after the mesh axis they are ("tp", of size 8).
 */
export function deviceGroupSummary(
  devices: readonly number[],
  innerAxis?: { name: string; size: number },
): string {
  const parts = deviceListParts(devices);
  if (parts.length <= LISTED_PARTS) return deviceGroupLabel(devices);
  const listed = `${parts[0]}, ${parts[1]}, …, ${parts[parts.length - 1]}`;
  const run = devices.length / parts.length;
  const even = Number.isInteger(run) && parts.every((p) => runLength(p) === run);
  if (!even || run === 1) return `${devices.length} devices: ${listed}`;
  const what = innerAxis && innerAxis.size === run ? `${innerAxis.name}${run} groups` : `runs of ${run}`;
  return `${parts.length} × ${what}: devices ${listed}`;
}

function runLength(part: string): number {
  const [a, b] = part.split('–').map(Number);
  return b === undefined ? 1 : b - a! + 1;
}

function deviceListParts(devices: readonly number[]): string[] {
  const parts: string[] = [];
  let i = 0;
  while (i < devices.length) {
    let j = i;
    while (j + 1 < devices.length && devices[j + 1] === devices[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${devices[i]}–${devices[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(devices[k]));
    i = j + 1;
  }
  return parts;
}

/** The title of a device group: `device 3`, `devices 0, 1`, `devices 0–127`. */
export function deviceGroupLabel(devices: readonly number[]): string {
  return `device${devices.length > 1 ? 's' : ''} ${deviceListText(devices)}`;
}
