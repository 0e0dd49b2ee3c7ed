/**
 * The planner panel's state, apart from the document's slices: the search fields, the search on
 * the API (its progress polled until it stops, then its front), the point hovered, and the sweep
 * of the current design. Never saved with the design. `createPlannerStore` takes the API client
 * and the sweep runner, so a test gives it its own.
 */
import type { Design } from '@stagecraft/ir';
import type { SweepPoint } from '@stagecraft/planner/sweep';
import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { PlanJob, PlanJobsClient } from '../api/planJobsApi.ts';
import type { PlannerSession, SweepAxis } from '../core/action.ts';
import { DEFAULT_PLAN_FORM, type PlanForm, type PlanSearchRequest } from '../core/planForm.ts';
import type { FrontMeasure } from '../core/planFront.ts';

export type { SweepPoint };

/** Runs the planner's sweep of a design off the page's thread (planner/sweepRunner.ts). */
export type SweepRunner = (design: Design, axis: SweepAxis, values: number[]) => Promise<SweepPoint[]>;

export interface SearchSlice {
  form: PlanForm;
  /** The search on screen: the last one started, as the API last described it. */
  job: PlanJob | null;
  /** The API has not answered the start yet. */
  starting: boolean;
  /** Why the last start or poll failed (the API's message). */
  error: string | null;
  /** The name of the design the search on screen was started from. */
  searchedFor: string | null;
  measure: FrontMeasure;
  /** Index of the front's point under the pointer. */
  hovered: number | null;
}

export interface SweepSlice {
  sweepAxis: SweepAxis;
  sweepValues: string;
  sweep: { axis: SweepAxis; points: SweepPoint[]; designName: string } | null;
  sweeping: boolean;
}

export interface PlannerCommands {
  setForm(p: Partial<PlanForm>): void;
  setMeasure(m: FrontMeasure): void;
  hover(index: number | null): void;
  setSweepAxis(axis: SweepAxis): void;
  setSweepValues(text: string): void;
  start(design: Design, request: PlanSearchRequest): Promise<void>;
  cancel(): Promise<void>;
  runSweep(design: Design, axis: SweepAxis, values: number[]): Promise<void>;
}

export type PlannerState = SearchSlice & SweepSlice & PlannerCommands;
export type PlannerStore = UseBoundStore<StoreApi<PlannerState>>;

export const INITIAL_SEARCH: SearchSlice = {
  form: DEFAULT_PLAN_FORM,
  job: null,
  starting: false,
  error: null,
  searchedFor: null,
  measure: 'step',
  hovered: null,
};

export const INITIAL_SWEEP: SweepSlice = {
  sweepAxis: 'microbatches',
  sweepValues: '1, 2, 4, 8, 16',
  sweep: null,
  sweeping: false,
};

/** How often a running search's progress is read: twice a second reads as live, and costs the API nothing. */
export const POLL_MS = 500;

export function isSearching(job: PlanJob | null): boolean {
  return job !== null && (job.status === 'running' || job.status === 'cancelling');
}

export function createPlannerStore(
  client: PlanJobsClient,
  runSweep: SweepRunner,
  pollMs = POLL_MS,
): PlannerStore {
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by every start: a poll of an older search is dropped. */
  let generation = 0;
  let sweepGeneration = 0;
  const store = create<PlannerState>()((set, get) => {
    const poll = (id: string, gen: number) => {
      timer = setTimeout(async () => {
        const r = await client.read(id);
        if (gen !== generation) return;
        if (!r.ok) {
          set({ error: r.message, job: { ...get().job!, status: 'failed' } });
          return;
        }
        set({ job: r.value });
        if (isSearching(r.value)) poll(id, gen);
      }, pollMs);
    };
    return {
      ...INITIAL_SEARCH,
      ...INITIAL_SWEEP,
      setForm: (p) => set({ form: { ...get().form, ...p } }),
      setMeasure: (measure) => set({ measure }),
      hover: (hovered) => set({ hovered }),
      setSweepAxis: (sweepAxis) => set({ sweepAxis }),
      setSweepValues: (sweepValues) => set({ sweepValues }),
      async start(design, request) {
        generation += 1;
        const gen = generation;
        clearTimeout(timer);
        set({ starting: true, error: null, job: null, hovered: null, searchedFor: design.name });
        const r = await client.start(design, request);
        if (gen !== generation) return;
        if (!r.ok) {
          set({ starting: false, error: r.message });
          return;
        }
        set({ starting: false, job: r.value });
        if (isSearching(r.value)) poll(r.value.id, gen);
      },
      async cancel() {
        const job = get().job;
        if (!job || !isSearching(job)) return;
        set({ job: { ...job, status: 'cancelling' } });
        const r = await client.cancel(job.id);
        if (!r.ok) set({ error: r.message });
      },
      async runSweep(design, axis, values) {
        sweepGeneration += 1;
        const gen = sweepGeneration;
        set({ sweeping: true });
        try {
          const points = await runSweep(design, axis, values);
          if (gen === sweepGeneration)
            set({ sweep: { axis, points, designName: design.name }, sweeping: false });
        } catch (e) {
          if (gen === sweepGeneration)
            set({
              sweeping: false,
              sweep: null,
              error: `the sweep failed: ${e instanceof Error ? e.message : String(e)}`,
            });
        }
      },
    };
  });
  return store;
}

/**
 * The planner panel's actions performed on the page's stores: the design and the notice of the
 * app's store, the search and the sweep of the planner's, and the designer for opened layouts.
 */
export function plannerSession(
  planner: PlannerStore,
  app: {
    design: Design;
    notify(text: string): void;
    openLayout(design: Design, label: string, pin: boolean): void;
  },
): PlannerSession {
  const p = planner.getState();
  return {
    design: app.design,
    searching: p.starting || isSearching(p.job),
    startSearch: (request) => void p.start(app.design, request),
    cancelSearch: () => void p.cancel(),
    runSweep: (axis, values) => void p.runSweep(app.design, axis, values),
    openLayout: app.openLayout,
    refuse: app.notify,
  };
}
