/**
 * What a measured trace was measured from: a fingerprint of a plan's instruction order. Hashed:
 * each device's number, each of its streams' names and, in order, the ids of the instructions on
 * them (`F.b3.mb5`, `SEND.F.b0.mb1.d1`): what a run executes and a trace names. Not hashed: costs,
 * bytes and names, so a design keeps its fingerprint when it is calibrated or renamed, and loses
 * it when its schedule, microbatches, stages or devices change.
 *
 * `plan:<devices>d:<instructions>i:<hash>`, the hash FNV-1a (32 bits) over the code units
 * of the text `<device>|<stream>|<id>\n…` (ids are ASCII). FNV-1a's offset basis 2166136261 and prime 16777619 are the published
 * 32-bit parameters (Fowler, Noll, Vo; IETF draft-eastlake-fnv, §2). It recognises a plan, it does
 * not protect one: the counts in front make a collision between plans a user confuses unlikely.
 */
import type { Plan } from './plan.ts';

const FNV_OFFSET_BASIS = 2166136261;
const FNV_PRIME = 16777619;

export function planFingerprint(plan: Pick<Plan, 'devices'>): string {
  let hash = FNV_OFFSET_BASIS;
  let instructions = 0;
  const add = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, FNV_PRIME);
    }
  };
  for (const d of plan.devices)
    for (const s of d.streams)
      for (const ins of s.instructions) {
        add(`${d.device}|${s.stream}|${ins.id}\n`);
        instructions += 1;
      }
  const hex = (hash >>> 0).toString(16).padStart(8, '0');
  return `plan:${plan.devices.length}d:${instructions}i:${hex}`;
}
