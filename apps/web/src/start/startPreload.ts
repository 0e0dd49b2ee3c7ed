/**
 * The page starts in stages (main.tsx): the entry imports the store's chunk, then the
 * components' chunk (0.55 MB), each with `import()`, which only fetches a chunk once the stage
 * before it has run (their styles, 17 KB, are left to Vite's own loading). Listed in the page's head as `modulepreload`, the browser fetches and compiles
 * them while the entry loads, without running them: the stages keep their own tasks and no longer
 * wait on the network and the compile in between.
 */
import type { HtmlTagDescriptor, Plugin } from 'vite';

interface ChunkFacts {
  type: 'chunk' | 'asset';
  fileName: string;
  isEntry?: boolean;
  imports?: readonly string[];
  dynamicImports?: readonly string[];
}

/** Every chunk the entry imports dynamically, with what those import statically. */
export function startChunks(bundle: Record<string, ChunkFacts>): string[] {
  const entries = Object.values(bundle).filter((c) => c.type === 'chunk' && c.isEntry);
  const scripts = new Set<string>();
  const visit = (fileName: string) => {
    const chunk = bundle[fileName];
    // A worker's script is an asset of the page's bundle, loaded by the worker: never preloaded.
    if (chunk?.type !== 'chunk' || scripts.has(fileName)) return;
    scripts.add(fileName);
    for (const next of chunk.imports ?? []) visit(next);
  };
  for (const entry of entries) for (const dynamic of entry.dynamicImports ?? []) visit(dynamic);
  // The entries' own static imports are preloaded by Vite already.
  for (const entry of entries) {
    scripts.delete(entry.fileName);
    for (const s of entry.imports ?? []) scripts.delete(s);
  }
  return [...scripts];
}

export function startPreload(): Plugin {
  let base = '/';
  return {
    name: 'stagecraft-start-preload',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx): HtmlTagDescriptor[] {
        if (!ctx.bundle) return [];
        return startChunks(ctx.bundle as unknown as Record<string, ChunkFacts>).map((f) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: true, href: base + f },
          injectTo: 'head',
        }));
      },
    },
  };
}
