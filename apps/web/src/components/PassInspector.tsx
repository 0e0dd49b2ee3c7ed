/** Choose a pass and the canvas shows the DAG after it, with the nodes it added or changed highlighted. */
import { formatMs } from '../core/format.ts';
import { useStore } from '../store/index.ts';

const NO_PASSES: never[] = [];

export function PassInspector() {
  const passes = useStore((s) => s.result?.passes) ?? NO_PASSES;
  const passView = useStore((s) => s.passView);
  const inspect = useStore((s) => s.inspectPass);
  return (
    <section className="panel passes">
      <h2>Passes</h2>
      <ol className="pass-list" data-testid="pass-list">
        <li>
          <button type="button" className={passView === null ? 'active' : ''} onClick={() => inspect(null)}>
            final DAG
          </button>
        </li>
        {passes.map((p) => (
          <li key={p.pass}>
            <button
              type="button"
              data-testid={`pass-${p.pass}`}
              className={passView?.pass === p.pass ? 'active' : ''}
              disabled={p.nodes === undefined}
              title={
                p.nodes === undefined ? 'this pass does not change the DAG' : 'show the DAG after this pass'
              }
              onClick={() => inspect(p.pass)}
            >
              <span>{p.pass}</span>
              <span className="pass-meta">
                {p.nodes !== undefined ? `${p.nodes} nodes · ` : ''}
                {formatMs(p.ms)}
              </span>
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
