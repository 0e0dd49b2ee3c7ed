/**
 * Any measurement file the calibration takes: a trace (Stagecraft, Kineto, legacy profiler) or a
 * plain table of stage costs (CSV or JSON), told apart by content, not by extension.
 */
import { type Issue, issue } from '@stagecraft/ir';
import type { MeasuredStep } from '../measuredStep.ts';
import { type ReadTraceOptions, traceFromDocument } from './readTrace.ts';
import { isStageTable, type MeasuredCosts, readStageCsv, readStageJson } from './stageTable.ts';

export type MeasurementRead =
  | { ok: true; kind: 'trace'; step: MeasuredStep }
  | { ok: true; kind: 'table'; costs: MeasuredCosts; form: 'csv' | 'json' }
  | { ok: false; errors: Issue[] };

export function readMeasurement(
  text: string,
  fileName: string,
  options: ReadTraceOptions = {},
): MeasurementRead {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (isStageTable(body, undefined)) return asTable(readStageCsv(body), 'csv');
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (e) {
    return {
      ok: false,
      errors: [
        issue('', `neither JSON nor a CSV stage table (first line "stage,F,BI,BW"): ${(e as Error).message}`),
      ],
    };
  }
  if (isStageTable(body, doc)) return asTable(readStageJson(doc), 'json');
  const r = traceFromDocument(doc, fileName, options);
  return r.ok ? { ok: true, kind: 'trace', step: r.step } : r;
}

function asTable(r: ReturnType<typeof readStageJson>, form: 'csv' | 'json'): MeasurementRead {
  return r.ok ? { ok: true, kind: 'table', costs: r.costs, form } : r;
}
