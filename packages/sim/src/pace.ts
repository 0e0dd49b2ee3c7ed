/**
 * The rate interface of the event loop: how fast a running unit progresses, hence when it
 * finishes given what else runs. The loop decides *when* work starts (readiness, posted RECVs,
 * collectives waiting for every member); a pace decides how long it then takes, by writing the
 * unit's end and queueing it (FinishQueue), and may move that end later when what runs beside it
 * changes. RECVs take no time of their own (they end with their SEND) and are never paced.
 *
 * One pace serves a whole run and is chosen before it (idealPace.ts, sharedPace.ts): the loop
 * calls it through one field, so in a process that simulates one kind of cluster each call site
 * sees one class and stays monomorphic.
 */

export interface Pace {
  /**
   * Whether a collective's members finish as one event, the first member standing for the group
   * (true), or each member as its own event (false). Both end the members at the same time; they
   * differ in where other units ending at that same time fall among the members, which the ideal
   * pace keeps as it always was so that its timelines stay the same.
   */
  readonly collectiveIsOneJob: boolean;
  /** Unit v (compute, OVERLAP, SEND, OFFLOAD, RELOAD) starts now with `dur[v]` of work. */
  start(v: number): void;
  /** Every member of collective group g has started now: the group's work begins. */
  startCollective(g: number): void;
  /** The job of unit v (a collective's: of the unit standing for it) finished now. */
  stop(v: number): void;
}
