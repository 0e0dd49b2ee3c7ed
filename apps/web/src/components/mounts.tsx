/** Where the timeline and compare components are mounted, fed from the store. */
import { useStore } from '../store/index.ts';

export function TimelinePane() {
  return null;
}

export function ComparePane() {
  const pins = useStore((s) => s.pins);
  const unpin = useStore((s) => s.unpin);
  return (
    <section className="panel pins">
      <h2>Pinned variants</h2>
      <ul>
        {pins.map((p, i) => (
          <li key={p.name}>
            {p.name}{' '}
            <button type="button" onClick={() => unpin(i)}>
              unpin
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
