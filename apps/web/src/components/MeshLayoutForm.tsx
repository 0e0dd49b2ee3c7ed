/**
 * The cluster's mesh builder: lays the schedule's pipeline stages out on meshes (axes and sizes,
 * e.g. dp × tp per stage) and writes them as the schedule's groups. The inputs stay drafts until
 * Apply, so a half-typed shape never reaches the design; what is wrong shows as it is typed.
 */
import type { Design } from '@stagecraft/ir';
import { useMemo, useState } from 'react';
import { setMeshLayoutAction } from '../core/actions.ts';
import {
  currentMeshLayout,
  type MeshLayout,
  type MeshOrder,
  meshClusterDevices,
  meshLayoutProblems,
  scheduleStages,
} from '../core/meshLayout.ts';
import { modelPipelineStages, stageCountProblem } from '../core/modelStages.ts';
import { useStore } from '../store/index.ts';

interface Draft {
  stages: string;
  axes: string;
  sizes: string;
  order: MeshOrder;
}

function initialDraft(design: Design): Draft | null {
  const stages = scheduleStages(design);
  if (stages === undefined) return null;
  const now = currentMeshLayout(design);
  if (now)
    return {
      stages: String(now.stages),
      axes: now.axes.join(', '),
      sizes: now.sizes.join(', '),
      order: now.order,
    };
  const devices = meshClusterDevices(design.cluster);
  const perStage = typeof devices === 'number' ? Math.max(1, Math.floor(devices / stages)) : 1;
  return { stages: String(stages), axes: 'dp, tp', sizes: `1, ${perStage}`, order: 'stage-blocks' };
}

const list = (t: string) => t.split(/[\s,×]+/).filter(Boolean);

function layoutOf(d: Draft): MeshLayout {
  return {
    stages: Number(d.stages),
    axes: list(d.axes),
    sizes: list(d.sizes).map(Number),
    order: d.order,
  };
}

export function MeshLayoutForm() {
  const design = useStore((s) => s.design);
  const initial = initialDraft(design);
  // A new design, or groups changed elsewhere (JSON, undo), start the drafts again from them.
  return <MeshLayoutFields key={JSON.stringify(initial)} initial={initial} />;
}

function MeshLayoutFields({ initial }: { initial: Draft | null }) {
  const cluster = useStore((s) => s.design.cluster);
  const design = useStore((s) => s.design);
  // Lowering a transformer to count its stages takes tens of ms: once per model, not per keystroke.
  const modelStages = useMemo(() => modelPipelineStages(design.model), [design.model]);
  const dispatch = useStore((s) => s.dispatch);
  const [draft, setDraft] = useState<Draft | null>(initial);
  if (!draft)
    return (
      <section className="panel form" data-testid="mesh-form">
        <h2>Mesh</h2>
        <p className="hint">Add a schedule to lay its stages out on a mesh.</p>
      </section>
    );
  const layout = layoutOf(draft);
  const problems = meshLayoutProblems(layout, cluster);
  const stageProblem = problems.length === 0 ? stageCountProblem(design, layout.stages, modelStages) : null;
  if (stageProblem) problems.push(stageProblem);
  const edit = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const perStage = layout.sizes.reduce((a, b) => a * b, 1);
  return (
    <section className="panel form" data-testid="mesh-form">
      <h2>Mesh</h2>
      <DraftField label="stages" field="stages" draft={draft} edit={edit} />
      <DraftField label="axes" field="axes" placeholder="dp, tp" draft={draft} edit={edit} />
      <DraftField label="sizes" field="sizes" placeholder="2, 8" draft={draft} edit={edit} />
      <label className="field">
        <span className="field-label">layout</span>
        <select
          data-testid="mesh-order"
          value={draft.order}
          onChange={(e) => edit({ order: e.target.value as MeshOrder })}
        >
          <option value="stage-blocks" title="stage s on the next block of devices, row-major">
            each stage a block
          </option>
          <option
            value="first-axis-across-stages"
            title="Megatron's order: the other axes within a stage's block, then the stages, then the first axis (TP in a node, DP across)"
          >
            first axis across stages
          </option>
        </select>
      </label>
      {problems.length > 0 ? (
        <ul className="field-error" role="alert" data-testid="mesh-error">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : (
        <p className="hint" data-testid="mesh-summary">
          {layout.stages} stages × {layout.sizes.join(' × ')} ({layout.axes.join(' × ')}) ={' '}
          {layout.stages * perStage} devices
        </p>
      )}
      <div className="dialog-actions">
        <button
          type="button"
          data-testid="mesh-apply"
          disabled={problems.length > 0}
          onClick={() => dispatch(setMeshLayoutAction, { layout })}
        >
          Apply to schedule
        </button>
      </div>
    </section>
  );
}

/** One labelled text input of the draft (test id `mesh-<field>`). */
function DraftField({
  label,
  field,
  placeholder,
  draft,
  edit,
}: {
  label: string;
  field: 'stages' | 'axes' | 'sizes';
  placeholder?: string;
  draft: Draft;
  edit: (patch: Partial<Draft>) => void;
}) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      <input
        data-testid={`mesh-${field}`}
        placeholder={placeholder}
        value={draft[field]}
        onChange={(e) => edit({ [field]: e.target.value })}
      />
    </label>
  );
}
