/**
 * A palette item dragged (HTML5 drag and drop) onto an op: the op under the pointer is outlined
 * meanwhile, and the drop is reported to the page with the op. What the item does to the design
 * is the page's business.
 */
import type { GanttGeometry } from './geometry.ts';
import type { GanttLive } from './props.ts';

/** HTML5 drag data type of a palette item; the data is the item's name (`split_backward`, `dualpipev`). */
export const PALETTE_DRAG_TYPE = 'application/x-stagecraft-palette';

/** What the handlers read of a drag event (React's and the DOM's alike). */
type DragLike = Pick<DragEvent, 'clientX' | 'clientY' | 'relatedTarget' | 'preventDefault'> & {
  dataTransfer: DataTransfer | null;
};

const carriesPaletteItem = (e: DragLike) =>
  Array.from(e.dataTransfer?.types ?? []).includes(PALETTE_DRAG_TYPE);

export class PaletteDrop {
  constructor(
    private readonly geometry: GanttGeometry,
    private readonly live: () => GanttLive,
    /** The op to outline as the drop target, or -1. */
    private readonly outline: (index: number) => void,
  ) {}

  over(e: DragLike): void {
    if (!carriesPaletteItem(e)) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    const index = this.geometry.opIndex(e.clientX, e.clientY);
    if (index !== this.live().dropTarget) this.outline(index);
  }

  /** Leaving for one of the timeline's own elements is not leaving. */
  leave(e: DragLike, root: HTMLElement | null): void {
    const next = e.relatedTarget as Node | null;
    if (next && root?.contains(next)) return;
    this.outline(-1);
  }

  drop(e: DragLike): void {
    if (!carriesPaletteItem(e)) return;
    e.preventDefault();
    this.outline(-1);
    const item = e.dataTransfer?.getData(PALETTE_DRAG_TYPE);
    const l = this.live();
    const op = l.layout.ops[this.geometry.opIndex(e.clientX, e.clientY)];
    if (item && op) l.props.onDropPaletteItem?.(item, op.ev);
  }
}
