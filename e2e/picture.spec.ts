/** The timeline saved as a picture for papers (issue 30, §4): SVG and PNG of the view on screen. */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { openApp } from './app.ts';

test('the timeline saves as an SVG holding every device’s ops and as a PNG at twice its size', async ({
  page,
}) => {
  await openApp(page);
  const [svgFile] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('timeline-svg').click(),
  ]);
  expect(svgFile.suggestedFilename()).toMatch(/-timeline\.svg$/);
  const svg = readFileSync((await svgFile.path())!, 'utf8');
  expect(svg.startsWith('<?xml')).toBe(true);
  expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
  for (const device of [0, 1, 2, 3]) expect(svg).toContain(`data-device="${device}"`);
  expect(svg).toContain('data-op-id="F.b3.mb7"');
  // It is a well-formed document the browser reads back as an SVG.
  const root = await page.evaluate(
    (text) => new DOMParser().parseFromString(text, 'image/svg+xml').documentElement.nodeName,
    svg,
  );
  expect(root).toBe('svg');
  const [pngFile] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('timeline-png').click(),
  ]);
  expect(pngFile.suggestedFilename()).toMatch(/-timeline\.png$/);
  const png = readFileSync((await pngFile.path())!);
  expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
  const width = png.readUInt32BE(16);
  const box = (await page.getByTestId('gantt').boundingBox())!;
  expect(Math.abs(width - 2 * box.width)).toBeLessThanOrEqual(4);
});
