/**
 * Where each unit stands during a run. The event loop writes these and the deadlock analysis reads
 * them when events run out: a unit's state alone tells what it still waits for.
 */

export const S_BLOCKED = 0;
export const S_RUNNING = 1;
export const S_DONE = 2;
/** A RECV that started and waits for its SEND to end. */
export const S_RECV_WAIT = 3;
/** A collective member that reached the collective and waits for the other members. */
export const S_ARRIVED = 4;
