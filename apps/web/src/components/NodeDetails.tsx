/** What the hovered DAG node (or timeline op) is: tags, costs, memory effects and the directive that made it. */
import { formatBytes, formatMs, formatTags } from '../core/format.ts';
import { passColor } from '../core/passColors.ts';
import { useStore } from '../store/index.ts';

export function NodeDetails() {
  const n = useStore((s) => s.hovered);
  if (!n)
    return (
      <section className="panel details">
        <h2>Details</h2>
        <p className="hint">Hover a node to see its tags, costs, memory and provenance.</p>
      </section>
    );
  return (
    <section className="panel details" data-testid="node-details">
      <h2>
        <span className="swatch" style={{ background: passColor(n.colorKey) }} /> {n.label}
        {n.count > 1 && <span className="count"> ×{n.count}</span>}
      </h2>
      <dl>
        <dt>id</dt>
        <dd>
          <code>{n.firstId}</code>
          {n.count > 1 ? ` and ${n.count - 1} more` : ''}
        </dd>
        <dt>tags</dt>
        <dd>{formatTags(n.tags) || '—'}</dd>
        <dt>devices</dt>
        <dd>{n.devices.length ? n.devices.join(', ') : 'unplaced'}</dd>
        <dt>stream</dt>
        <dd>{n.stream}</dd>
        {n.costMs !== undefined && (
          <>
            <dt>cost</dt>
            <dd>{formatMs(n.costMs)}</dd>
          </>
        )}
        {n.flops !== undefined && (
          <>
            <dt>FLOPs</dt>
            <dd>{n.flops.toExponential(2)}</dd>
          </>
        )}
        {n.bytes !== undefined && (
          <>
            <dt>bytes</dt>
            <dd>{formatBytes(n.bytes)}</dd>
          </>
        )}
        {n.allocBytes !== undefined && (
          <>
            <dt>memory</dt>
            <dd>
              +{formatBytes(n.allocBytes)} / −{formatBytes(n.freeBytes ?? 0)}
            </dd>
          </>
        )}
        <dt>made by</dt>
        <dd data-testid="node-provenance">
          pass <b>{n.provenance.pass}</b>
          {n.provenance.directive === null ? (
            ' from the model'
          ) : n.provenance.path ? (
            <>
              {' '}
              · {n.provenance.op} <code>{n.provenance.path}</code>
            </>
          ) : (
            ` · directive ${n.provenance.directive}`
          )}
        </dd>
      </dl>
    </section>
  );
}
