/**
 * Shares one zoom and pan among several timelines (the compare view), without a React render per
 * frame: each timeline applies what the others publish directly to its own zoom behaviour.
 */
export interface SharedTransform {
  k: number;
  x: number;
}

export interface ViewSync {
  current(): SharedTransform;
  publish(t: SharedTransform, from: object): void;
  subscribe(fn: (t: SharedTransform, from: object) => void): () => void;
}

export function createViewSync(): ViewSync {
  let value: SharedTransform = { k: 1, x: 0 };
  const subs = new Set<(t: SharedTransform, from: object) => void>();
  return {
    current: () => value,
    publish(t, from) {
      value = { k: t.k, x: t.x };
      for (const fn of subs) fn(value, from);
    },
    subscribe(fn) {
      subs.add(fn);
      return () => {
        subs.delete(fn);
      };
    },
  };
}
