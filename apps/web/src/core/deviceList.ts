/**
 * A device list as people write it: runs of three or more consecutive devices as a range, so a
 * group of 128 GPUs reads `0–127`, not 128 numbers running out of its box.
 */
export function deviceListText(devices: readonly number[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < devices.length) {
    let j = i;
    while (j + 1 < devices.length && devices[j + 1] === devices[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${devices[i]}–${devices[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(devices[k]));
    i = j + 1;
  }
  return parts.join(', ');
}

/** The title of a device group: `device 3`, `devices 0, 1`, `devices 0–127`. */
export function deviceGroupLabel(devices: readonly number[]): string {
  return `device${devices.length > 1 ? 's' : ''} ${deviceListText(devices)}`;
}
