/**
 * The file name of every download the export menu makes, from one rule, so the formats differ by
 * their suffix (`…-compute.csv`, `…-comms.csv`, `…-trace.json`) and every name is sanitised the
 * same way: accents dropped ("é" → "e"), `=` dropped ("p=4" → "p4"), any run of other characters outside A–Z, a–z, 0–9, `.`,
 * `_` and `+` turned into one `-`, so a name holds no space, comma, slash or quote on any system.
 */

/** What is exported: an API format (torch-csv with its torchFormat) or the design file itself. */
export type ExportKind =
  | 'chrome-trace'
  | 'torch-csv-compute_only'
  | 'torch-csv-compute_comms'
  | 'piper'
  | 'plan'
  | 'design';

const SUFFIX: Record<ExportKind, string> = {
  'chrome-trace': '-trace.json',
  'torch-csv-compute_only': '-compute.csv',
  'torch-csv-compute_comms': '-comms.csv',
  piper: '-piper.json',
  plan: '-plan.json',
  design: '.json',
};

const MAX_STEM = 100;

export function fileStem(designName: string): string {
  const stem = designName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/=/g, '')
    .replace(/[^A-Za-z0-9._+]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, MAX_STEM)
    .replace(/[-.]+$/, '');
  return stem || 'design';
}

export function exportFileName(designName: string, kind: ExportKind): string {
  return `${fileStem(designName)}${SUFFIX[kind]}`;
}
