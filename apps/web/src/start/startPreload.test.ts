import { describe, expect, it } from 'vitest';
import { startChunks } from './startPreload.ts';

const chunk = (fileName: string, more: object = {}) => ({ type: 'chunk' as const, fileName, ...more });

describe('the chunks the page preloads as it starts', () => {
  it('lists the stages the entry imports and what they import, not the entry or its own imports', () => {
    const bundle = {
      'index.js': chunk('index.js', {
        isEntry: true,
        imports: ['nextTask.js'],
        dynamicImports: ['session.js', 'appRoot.js'],
      }),
      'nextTask.js': chunk('nextTask.js'),
      'session.js': chunk('session.js', { imports: ['examples.js', 'nextTask.js'] }),
      'examples.js': chunk('examples.js'),
      'appRoot.js': chunk('appRoot.js', { imports: ['examples.js'], dynamicImports: ['gallery.js'] }),
      'gallery.js': chunk('gallery.js'),
      'compileWorker.js': { type: 'asset' as const, fileName: 'compileWorker.js' },
    };
    expect(startChunks(bundle).sort()).toEqual(['appRoot.js', 'examples.js', 'session.js']);
  });

  it('skips a worker script and a name missing from the bundle', () => {
    const bundle = {
      'index.js': chunk('index.js', { isEntry: true, dynamicImports: ['compileWorker.js', 'gone.js'] }),
      'compileWorker.js': { type: 'asset' as const, fileName: 'compileWorker.js' },
    };
    expect(startChunks(bundle)).toEqual([]);
  });
});
