import { memo, useEffect } from 'react';
import { MeasuredDrop, MeasuredPane } from '../measured/index.ts';
import { PlannerPane } from '../planner/index.ts';
import { useStore } from '../store/index.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { DagCanvas } from './DagCanvas.tsx';
import { Inspector } from './Inspector.tsx';
import { onKeyDown } from './keyboard.ts';
import { MeshLayoutForm } from './MeshLayoutForm.tsx';
import { Metrics } from './Metrics.tsx';
import { ClusterForm, ModelForm } from './ModelClusterForms.tsx';
import { ComparePane } from './mounts.tsx';
import { NodeDetails } from './NodeDetails.tsx';
import { Notice } from './Notice.tsx';
import { Palette } from './Palette.tsx';
import { PassInspector } from './PassInspector.tsx';
import { ProgramList } from './ProgramList.tsx';
import { SplitHandle } from './SplitHandle.tsx';
import { TimelinePane } from './TimelinePane.tsx';
import { Toolbar } from './Toolbar.tsx';

export function App() {
  const revision = useStore((s) => s.resultRevision);
  useEffect(() => {
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
  return (
    <div className="app" data-result-revision={revision}>
      <Page />
    </div>
  );
}

/**
 * Memoised apart from App, whose revision attribute changes with every result: a result then
 * re-renders only the panels that read it (metrics, timeline, passes), not every panel of the page
 * and the DAG canvas with them, which kept the new timeline from the screen.
 */
const Page = memo(function Page() {
  const tab = useStore((s) => s.tab);
  return (
    <>
      <SkipToTimeline />
      <Toolbar />
      <Notice />
      <ConfirmDialog />
      {tab === 'design' ? (
        <main className="workspace">
          <aside className="sidebar left">
            <Palette />
            <ProgramList />
          </aside>
          <section className="center">
            <Metrics />
            <DagCanvas />
            <SplitHandle label="resize the DAG and the timeline (arrow keys move it)" />
            <MeasuredDrop>
              <TimelinePane />
              <MeasuredPane />
            </MeasuredDrop>
          </section>
          <aside className="sidebar right">
            <Inspector />
            <NodeDetails />
            <PassInspector />
            <ModelForm />
            <ClusterForm />
            <MeshLayoutForm />
          </aside>
        </main>
      ) : tab === 'planner' ? (
        <main className="planner-view">
          <PlannerPane />
        </main>
      ) : (
        <main className="compare-view">
          <ComparePane />
        </main>
      )}
    </>
  );
});

/**
 * The first tab stop: straight to the timeline past the toolbar, palette, program and DAG (44 tab
 * stops before it). A button, not a link to #timeline: the address's fragment names the saved
 * design (#design=id).
 */
function SkipToTimeline() {
  return (
    <button
      type="button"
      className="skip-link"
      data-testid="skip-to-timeline"
      onClick={() => {
        const tab = useStore.getState().tab;
        if (tab !== 'design') useStore.getState().setTab('design');
        requestAnimationFrame(() =>
          document.querySelector<HTMLElement>('.timeline-pane [data-testid="gantt"]')?.focus(),
        );
      }}
    >
      Skip to the timeline
    </button>
  );
}
