import type { Design } from '@stagecraft/ir';
import { beforeEach, describe, expect, test } from 'vitest';
import type { MeasuredOverlay } from '../core/measuredOverlay.ts';
import type { WorkerRequest } from '../workerProtocol.ts';
import {
  bringMeasured,
  clearMeasured,
  connectMeasured,
  receiveMeasured,
  remeasure,
  useMeasured,
} from './measured.ts';

const sent: (WorkerRequest & { type: 'measure' })[] = [];
const notices: string[] = [];
let design = { name: 'a' } as unknown as Design;

const overlayOf = (stepMs: number) =>
  ({ ok: true, files: ['t.json'], timeline: { makespanMs: stepMs } }) as unknown as MeasuredOverlay;
const lastId = () => sent.at(-1)!.id;

describe('the measured overlay’s state', () => {
  beforeEach(() => {
    sent.length = 0;
    notices.length = 0;
    clearMeasured();
    connectMeasured(
      (r) => r.type === 'measure' && sent.push(r),
      (t) => notices.push(t),
      () => design,
    );
  });

  test('brought files are sent with the current design and become the overlay once they read', () => {
    const files = [{ name: 't.json', text: '{}' }];
    bringMeasured(files);
    expect(sent[0]).toMatchObject({ type: 'measure', design, files });
    expect(useMeasured.getState().status).toBe('computing');
    receiveMeasured(lastId(), overlayOf(5));
    expect(useMeasured.getState()).toMatchObject({ files, status: 'ok' });
    expect(useMeasured.getState().overlay?.timeline.makespanMs).toBe(5);
  });

  test('a reply to a superseded request is ignored', () => {
    bringMeasured([{ name: 'a.json', text: '{}' }]);
    const stale = lastId();
    bringMeasured([{ name: 'b.json', text: '{}' }]);
    receiveMeasured(stale, overlayOf(1));
    expect(useMeasured.getState().overlay).toBeNull();
    receiveMeasured(lastId(), overlayOf(2));
    expect(useMeasured.getState().files.map((f) => f.name)).toEqual(['b.json']);
  });

  test('files that do not read leave the overlay as it was and say why', () => {
    bringMeasured([{ name: 'good.json', text: '{}' }]);
    receiveMeasured(lastId(), overlayOf(3));
    bringMeasured([{ name: 'bad.json', text: 'x' }]);
    receiveMeasured(lastId(), { ok: false, errors: ['bad.json: neither JSON nor a CSV stage table'] });
    expect(notices).toEqual(['bad.json: neither JSON nor a CSV stage table']);
    expect(useMeasured.getState().overlay?.timeline.makespanMs).toBe(3);
    expect(useMeasured.getState().files.map((f) => f.name)).toEqual(['good.json']);
  });

  test('each new result of the design is compared again with the kept files', () => {
    bringMeasured([{ name: 'good.json', text: '{}' }]);
    receiveMeasured(lastId(), overlayOf(3));
    design = { name: 'b' } as unknown as Design;
    remeasure();
    expect(sent.at(-1)).toMatchObject({ design: { name: 'b' }, files: [{ name: 'good.json' }] });
    // An edit the trace no longer measures takes the stale comparison down, keeping the files.
    receiveMeasured(lastId(), { ok: false, errors: ['the trace measures device 3, which …'] });
    expect(useMeasured.getState().overlay).toBeNull();
    remeasure();
    expect(sent.at(-1)?.files[0]?.name).toBe('good.json');
  });

  test('without files nothing is sent', () => {
    remeasure();
    expect(sent).toEqual([]);
  });
});
