/**
 * The rate interface of the event loop: how fast a running unit progresses, hence when it
 * finishes given what else runs. The loop decides *when* work starts (readiness, posted RECVs,
 * collectives waiting for every member) and queues each started unit at its end at full rate
 * (start + its cost-model time); a pace that shares resources among running units moves ends
 * from there, by writing a unit's new end and queueing it again (FinishQueue), whenever what
 * runs beside it changes. RECVs take no time of their own (they end with their SEND) and are
 * never paced.
 *
 * One pace serves a whole run and is chosen before it (idealPace.ts, sharedPace.ts): the loop
 * calls it through one field, so in a process that simulates one kind of cluster each call site
 * sees one class and stays monomorphic (the ideal pace's empty methods then inline to nothing).
 */

export interface Pace {
  /**
   * Whether a collective's members finish as one event, the first member standing for the group
   * (true), or each member as its own event (false). Both end the members at the same time; they
   * differ in where other units ending at that same time fall among the members, which the ideal
   * pace keeps as it always was so that its timelines stay the same.
   */
  readonly collectiveIsOneJob: boolean;
  /**
   * Unit v (compute, OVERLAP, SEND, OFFLOAD, RELOAD) started now with `dur[v]` of work, and is
   * queued at now + dur[v]: the pace moves that end if v does not run at full rate.
   */
  start(v: number): void;
  /** Every member of collective group g has started now: the pace queues the group's end. */
  startCollective(g: number): void;
  /** The job of unit v (a collective's: of the unit standing for it) finished now. */
  stop(v: number): void;
}
