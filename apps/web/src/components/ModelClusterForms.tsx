/** Model and cluster of the design: presets and fields; each committed change is one action. */
import {
  CLUSTER_PRESET_NAMES,
  type Cluster,
  type Model,
  type SyntheticBlock,
  type SyntheticStagesModel,
  TRANSFORMER_PRESET_NAMES,
  TRANSFORMER_PRESETS,
  type TransformerModel,
} from '@stagecraft/ir';
import { setClusterAction, setModelAction } from '../core/actions.ts';
import { formatMs } from '../core/format.ts';
import { useStore } from '../store/index.ts';
import { CommitInput } from './Inspector.tsx';

// The suggestions are the registries' own names, so a preset added there is offered here and no
// name is offered that the compiler would refuse.
const MODEL_PRESETS = TRANSFORMER_PRESET_NAMES;
const CLUSTER_PRESETS = CLUSTER_PRESET_NAMES;
const MIB = 1024 * 1024;

type Parse = (t: string) => { ok: true; value: unknown } | { ok: false; message: string };

const nonNeg =
  (optional: boolean): Parse =>
  (t) => {
    if (optional && t.trim() === '') return { ok: true, value: undefined };
    const n = Number(t);
    return t.trim() !== '' && Number.isFinite(n) && n >= 0
      ? { ok: true, value: n }
      : { ok: false, message: 'a number ≥ 0' };
  };
const positiveInt =
  (optional: boolean): Parse =>
  (t) => {
    if (optional && t.trim() === '') return { ok: true, value: undefined };
    const n = Number(t);
    return Number.isInteger(n) && n >= 1
      ? { ok: true, value: n }
      : { ok: false, message: 'a whole number ≥ 1' };
  };

function Row({
  label,
  value,
  parse,
  onCommit,
  testid,
  list,
  placeholder,
}: {
  label: string;
  value: unknown;
  parse: Parse;
  onCommit: (v: unknown) => void;
  testid: string;
  list?: string;
  placeholder?: string | undefined;
}) {
  // The input is named by the field's label (aria-label), for screen readers and tests alike.
  return (
    <div className="field">
      <span className="field-label">{label}</span>
      {list ? (
        <input
          list={list}
          aria-label={label}
          data-testid={testid}
          defaultValue={value === undefined ? '' : String(value)}
          key={String(value)}
          onBlur={(e) =>
            e.target.value !== String(value ?? '') && onCommit(e.target.value.trim() || undefined)
          }
          onKeyDown={(e) => {
            if (e.key === 'Enter') (e.target as HTMLInputElement).blur();
          }}
        />
      ) : (
        <CommitInput
          label={label}
          testid={testid}
          value={value === undefined ? '' : String(value)}
          parse={parse}
          onCommit={onCommit}
          {...(placeholder !== undefined ? { placeholder } : {})}
        />
      )}
    </div>
  );
}

/** The preset's value of a field, shown in the empty field the design leaves to the preset. */
function presetValue(preset: string | undefined, key: string): string | undefined {
  const p = preset === undefined ? undefined : TRANSFORMER_PRESETS[preset];
  const v = p ? (p as unknown as Record<string, unknown>)[key] : undefined;
  return v === undefined ? undefined : String(v);
}

function set<T extends object>(obj: T, key: string, v: unknown): T {
  const next = { ...obj } as Record<string, unknown>;
  if (v === undefined) delete next[key];
  else next[key] = v;
  return next as T;
}

/** The preset field of a model or cluster: free text with the known presets suggested. */
function PresetRow({
  id,
  presets,
  testid,
  value,
  onCommit,
}: {
  id: string;
  presets: readonly string[];
  testid: string;
  value: string | undefined;
  onCommit: (v: unknown) => void;
}) {
  return (
    <>
      <datalist id={id}>
        {presets.map((p) => (
          <option key={p} value={p} />
        ))}
      </datalist>
      <Row label="preset" list={id} testid={testid} value={value} parse={nonNeg(true)} onCommit={onCommit} />
    </>
  );
}

/** Node count of a preset or custom cluster. */
function NodesRow({ nodes, onCommit }: { nodes: number; onCommit: (nodes: number) => void }) {
  return (
    <Row
      label="nodes"
      testid="cluster-nodes"
      value={nodes}
      parse={positiveInt(false)}
      onCommit={(v) => onCommit(v as number)}
    />
  );
}

type CustomCluster = Extract<Cluster, { kind: 'custom' }>;

interface CustomField {
  label: string;
  testid: string;
  parse: Parse;
  get: (c: CustomCluster) => number;
  put: (c: CustomCluster, v: number) => CustomCluster;
}

const gpuField = (label: string, testid: string, key: 'peakTflops' | 'memoryGiB'): CustomField => ({
  label,
  testid,
  parse: nonNeg(false),
  get: (c) => c.gpu[key],
  put: (c, v) => ({ ...c, gpu: { ...c.gpu, [key]: v } }),
});

const linkField = (label: string, testid: string, key: 'intraNode' | 'interNode'): CustomField => ({
  label,
  testid,
  parse: nonNeg(false),
  get: (c) => c[key].bandwidthGBps,
  put: (c, v) => ({ ...c, [key]: { ...c[key], bandwidthGBps: v } }),
});

/** The numeric fields of a custom cluster after its node count, each read and replaced in place. */
const CUSTOM_FIELDS: CustomField[] = [
  {
    label: 'GPUs per node',
    testid: 'cluster-gpus',
    parse: positiveInt(false),
    get: (c) => c.gpusPerNode,
    put: (c, v) => ({ ...c, gpusPerNode: v }),
  },
  gpuField('peak TFLOP/s', 'cluster-tflops', 'peakTflops'),
  gpuField('memory GiB', 'cluster-memory', 'memoryGiB'),
  linkField('intra-node GB/s', 'cluster-intra', 'intraNode'),
  linkField('inter-node GB/s', 'cluster-inter', 'interNode'),
];

export function ModelForm() {
  const model = useStore((s) => s.design.model);
  const dispatch = useStore((s) => s.dispatch);
  const update = (m: Model) => dispatch(setModelAction, { model: m });
  const kind = model.kind === 'synthetic' ? ('stages' in model ? 'stages' : 'blocks') : 'transformer';
  return (
    <section className="panel form" data-testid="model-form">
      <h2>Model</h2>
      <ModelKindSelect kind={kind} update={update} />
      {model.kind === 'synthetic' && 'stages' in model && <StagesModelFields model={model} update={update} />}
      {model.kind === 'synthetic' && 'blocks' in model && <BlockCosts blocks={model.blocks} />}
      {model.kind === 'transformer' && <TransformerModelFields model={model} update={update} />}
    </section>
  );
}

/** The model's kind: switching it starts the new kind from a small working default. */
function ModelKindSelect({
  kind,
  update,
}: {
  kind: 'stages' | 'blocks' | 'transformer';
  update: (m: Model) => void;
}) {
  return (
    <KindSelect
      testid="model-kind"
      kind={kind}
      kinds={[
        { kind: 'stages', label: 'synthetic: identical stages' },
        // Only reached by opening such a design: the form edits its blocks, it does not start them.
        { kind: 'blocks', label: 'synthetic: explicit blocks', disabled: kind !== 'blocks' },
        { kind: 'transformer', label: 'transformer' },
      ]}
      onPick={(k) => {
        if (k === 'stages')
          update({
            kind: 'synthetic',
            stages: 4,
            costs: { F: 1, BI: 1, BW: 1 },
            activationBytes: 256 * MIB,
            paramBytes: 1024 * MIB,
            outputBytes: 16 * MIB,
          });
        else if (k === 'transformer')
          update({ kind: 'transformer', preset: 'llama3-8b', annotate: { PP: 4 } });
      }}
    />
  );
}

/** A form's kind field: picking another kind hands it to the form, which starts it from its default. */
function KindSelect<K extends string>({
  testid,
  kind,
  kinds,
  onPick,
}: {
  testid: string;
  kind: K;
  kinds: readonly { kind: K; label: string; disabled?: boolean }[];
  onPick(kind: K): void;
}) {
  return (
    <label className="field">
      <span className="field-label">kind</span>
      <select data-testid={testid} value={kind} onChange={(e) => onPick(e.target.value as K)}>
        {kinds.map((k) => (
          <option key={k.kind} value={k.kind} disabled={k.disabled}>
            {k.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A synthetic model of identical stages: their count, each pass's cost and the tensors' sizes. */
function StagesModelFields({ model, update }: { model: SyntheticStagesModel; update: (m: Model) => void }) {
  return (
    <>
      <Row
        label="stages"
        testid="model-stages"
        value={model.stages}
        parse={positiveInt(false)}
        onCommit={(v) => update({ ...model, stages: v as number })}
      />
      {(['F', 'BI', 'BW', 'FandB', 'UPD'] as const).map((k) => (
        <Row
          key={k}
          label={`${k} ms`}
          testid={`model-cost-${k}`}
          value={model.costs[k]}
          parse={nonNeg(k === 'FandB' || k === 'UPD')}
          onCommit={(v) => update({ ...model, costs: set(model.costs, k, v) })}
        />
      ))}
      {(['activationBytes', 'paramBytes', 'outputBytes'] as const).map((k) => (
        <Row
          key={k}
          label={`${k.replace('Bytes', '')} MiB`}
          testid={`model-${k}`}
          value={model[k] === undefined ? undefined : model[k]! / MIB}
          parse={nonNeg(true)}
          onCommit={(v) => update(set(model, k, v === undefined ? undefined : (v as number) * MIB))}
        />
      ))}
    </>
  );
}

/** A transformer: its preset, the shape fields that override it, dtype and the pipeline annotations. */
function TransformerModelFields({ model, update }: { model: TransformerModel; update: (m: Model) => void }) {
  return (
    <>
      <PresetRow
        id="model-presets"
        presets={MODEL_PRESETS}
        testid="model-preset"
        value={model.preset}
        onCommit={(v) => update(set(model, 'preset', v))}
      />
      {(
        ['layers', 'hidden', 'ffnHidden', 'heads', 'kvHeads', 'vocab', 'seqLen', 'microbatchSize'] as const
      ).map((k) => (
        <Row
          key={k}
          label={k}
          testid={`model-${k}`}
          value={model[k]}
          placeholder={presetValue(model.preset, k)}
          parse={positiveInt(true)}
          onCommit={(v) => update(set(model, k, v))}
        />
      ))}
      <label className="field">
        <span className="field-label">dtype</span>
        <select
          data-testid="model-dtype"
          value={model.dtype ?? ''}
          onChange={(e) => update(set(model, 'dtype', e.target.value || undefined))}
        >
          <option value="">preset default</option>
          {['bf16', 'fp16', 'fp32', 'fp8'].map((d) => (
            <option key={d}>{d}</option>
          ))}
        </select>
      </label>
      <Row
        label="PP stages"
        testid="model-annotate-PP"
        value={model.annotate?.PP}
        parse={positiveInt(true)}
        onCommit={(v) => update({ ...model, annotate: set(model.annotate ?? {}, 'PP', v) })}
      />
      {(['EP', 'TP'] as const).map((k) => (
        <label className="field" key={k}>
          <span className="field-label">tag {k}</span>
          <input
            type="checkbox"
            checked={model.annotate?.[k] === true}
            onChange={(e) =>
              update({ ...model, annotate: set(model.annotate ?? {}, k, e.target.checked || undefined) })
            }
          />
        </label>
      ))}
    </>
  );
}

export function ClusterForm() {
  const cluster = useStore((s) => s.design.cluster);
  const dispatch = useStore((s) => s.dispatch);
  const update = (c: Cluster) => dispatch(setClusterAction, { cluster: c });
  const kind =
    'kind' in cluster && cluster.kind === 'ideal'
      ? 'ideal'
      : 'kind' in cluster && cluster.kind === 'custom'
        ? 'custom'
        : 'preset';
  return (
    <section className="panel form" data-testid="cluster-form">
      <h2>Cluster</h2>
      <KindSelect
        testid="cluster-kind"
        kind={kind}
        kinds={[
          { kind: 'ideal', label: 'ideal (free communication)' },
          { kind: 'preset', label: 'preset' },
          { kind: 'custom', label: 'custom' },
        ]}
        onPick={(k) => {
          if (k === 'ideal') update({ kind: 'ideal', devices: 4 });
          else if (k === 'preset') update({ preset: 'dgx-h100', nodes: 1 });
          else
            update({
              kind: 'custom',
              nodes: 1,
              gpusPerNode: 8,
              gpu: { name: 'H100', peakTflops: 989, achievableFraction: 0.5, memoryGiB: 80, sms: 132 },
              intraNode: { bandwidthGBps: 450, latencyUs: 3 },
              interNode: { bandwidthGBps: 50, latencyUs: 10 },
            });
        }}
      />
      {'kind' in cluster && cluster.kind === 'ideal' && (
        <>
          <Row
            label="devices"
            testid="cluster-devices"
            value={cluster.devices}
            parse={positiveInt(false)}
            onCommit={(v) => update({ ...cluster, devices: v as number })}
          />
          <Row
            label="p2p latency ms"
            testid="cluster-latency"
            value={cluster.p2pLatencyMs}
            parse={nonNeg(true)}
            onCommit={(v) => update(set(cluster, 'p2pLatencyMs', v))}
          />
        </>
      )}
      {'preset' in cluster && (
        <>
          <PresetRow
            id="cluster-presets"
            presets={CLUSTER_PRESETS}
            testid="cluster-preset"
            value={cluster.preset}
            onCommit={(v) => v && update({ ...cluster, preset: String(v) })}
          />
          <NodesRow nodes={cluster.nodes} onCommit={(nodes) => update({ ...cluster, nodes })} />
        </>
      )}
      {'kind' in cluster && cluster.kind === 'custom' && (
        <>
          <NodesRow nodes={cluster.nodes} onCommit={(nodes) => update({ ...cluster, nodes })} />
          {CUSTOM_FIELDS.map((f) => (
            <Row
              key={f.testid}
              label={f.label}
              testid={f.testid}
              value={f.get(cluster)}
              parse={f.parse}
              onCommit={(v) => update(f.put(cluster, v as number))}
            />
          ))}
        </>
      )}
    </section>
  );
}

/** Rows of the blocks table before it scrolls: a pipeline's stages at a glance, 146 blocks in a box. */
const BLOCK_ROWS_SHOWN = 8;

/**
 * A model of explicit blocks (a calibrated one: `calibrate` writes each block's fitted times), its
 * costs read-only: the fitted F, BI, BW and F&B of every block, in ms per microbatch.
 */
function BlockCosts({ blocks }: { blocks: readonly SyntheticBlock[] }) {
  const ms = (v: number | undefined) => (v === undefined ? '—' : formatMs(v));
  return (
    <>
      <p className="hint">
        {blocks.length} blocks with their own tags and costs, ms per microbatch (edit the design file to
        change them).
      </p>
      <div className="block-costs" style={{ maxHeight: `${(BLOCK_ROWS_SHOWN + 1) * 20}px` }}>
        <table data-testid="model-blocks">
          <thead>
            <tr>
              <th>block</th>
              <th>F</th>
              <th>BI</th>
              <th>BW</th>
              <th>F&amp;B</th>
            </tr>
          </thead>
          <tbody>
            {blocks.map((b, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: blocks are positional; names may repeat or be absent
              <tr key={i}>
                <td>{b.name ?? `block ${i}`}</td>
                <td>{ms(b.F)}</td>
                <td>{ms(b.BI)}</td>
                <td>{ms(b.BW)}</td>
                <td>{ms(b.FandB)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
