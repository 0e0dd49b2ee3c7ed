import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { anchorsOf, deadLinks, documents, linksOf } from './docLinks.mjs';

const trees = [];
afterEach(() => {
  for (const t of trees.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'doc-links-'));
  trees.push(root);
  mkdirSync(join(root, 'docs'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

describe('the documentation links', () => {
  test("headings get GitHub's anchors: punctuation dropped, spaces as hyphens, repeats numbered", () => {
    const md = '# Title\n## Dispatch time (`dispatchMs`)\n```\n# not a heading\n```\n## Usage\n## Usage\n';
    expect([...anchorsOf(md)]).toEqual(['title', 'dispatch-time-dispatchms', 'usage', 'usage-1']);
  });

  test('links inside code are not links; absolute URLs are not checked', () => {
    const md = 'see [a](a.md) and `[b](b.md)` or [c](https://example.com)\n```\n[d](d.md)\n```\n';
    expect(linksOf(md)).toEqual([{ target: 'a.md', line: 1 }]);
  });

  test('a link to a missing file or a missing heading is reported with where it is', () => {
    const root = tree({
      'README.md': '# Top\n[ok](docs/a.md#part) [gone](docs/b.md) [bad](docs/a.md#nowhere) [self](#top)\n',
      'docs/a.md': '# A\n## Part\n[back](../README.md#top)\n',
    });
    expect(deadLinks(documents(root), root)).toEqual([
      'README.md:2: docs/b.md: no file docs/b.md',
      'README.md:2: docs/a.md#nowhere: docs/a.md has no heading #nowhere',
    ]);
  });

  test('every link of the README and docs/ resolves', () => {
    expect(deadLinks(documents())).toEqual([]);
  });
});
