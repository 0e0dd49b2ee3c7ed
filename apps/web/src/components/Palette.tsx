/** The directive palette: drag an item onto a DAG node or a Gantt op, or click it to apply it to the selected node. */
import { BUILDER_ITEMS, DIRECTIVE_ITEMS } from '../core/palette.ts';
import { useStore } from '../store/index.ts';
import { applyItem, targetRefusal } from './applyItem.ts';
import { ITEM_MIME } from './dragItem.ts';

function Item({ k, label, summary, kind }: { k: string; label: string; summary: string; kind: string }) {
  const current = useStore((s) =>
    s.design.directives.find((d) => d.op === 'schedule' && d.enabled !== false),
  );
  const active = kind === 'builder' && current?.op === 'schedule' && current.builder === k;
  // Greyed, with the reason, when it cannot apply to the selected op (a second shard tensor).
  const refusal = useStore((s) => (s.target && s.dag ? targetRefusal(k, s.target) : null));
  return (
    <button
      type="button"
      className={`palette-item ${kind}${active ? ' active' : ''}`}
      data-testid={`palette-${k}`}
      draggable={refusal === null}
      disabled={refusal !== null}
      title={refusal ?? summary}
      onDragStart={(e) => {
        e.dataTransfer.setData(ITEM_MIME, k);
        e.dataTransfer.setData('text/plain', k);
        e.dataTransfer.effectAllowed = 'copy';
      }}
      onClick={() => applyItem(k, useStore.getState().target)}
    >
      {label}
    </button>
  );
}

export function Palette() {
  return (
    <section className="panel palette">
      <h2>Directives</h2>
      <p className="hint">Drag onto a DAG node or a timeline op.</p>
      <div className="palette-grid">
        {DIRECTIVE_ITEMS.map((i) => (
          <Item key={i.key} k={i.key} label={i.label} summary={i.summary} kind="directive" />
        ))}
      </div>
      <h2>Schedules</h2>
      <div className="palette-grid">
        {BUILDER_ITEMS.map((i) => (
          <Item key={i.key} k={i.key} label={i.label} summary={i.summary} kind="builder" />
        ))}
      </div>
    </section>
  );
}
