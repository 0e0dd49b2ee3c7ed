// @vitest-environment happy-dom
import { afterEach, describe, expect, test } from 'vitest';
import { pinAction, redoAction, saveAction, undoAction } from '../core/actions.ts';
import { actionFor } from './keyboard.ts';

function press(
  key: string,
  init: KeyboardEventInit = {},
  target: HTMLElement = document.body,
): KeyboardEvent {
  const e = new KeyboardEvent('keydown', { key, ctrlKey: true, bubbles: true, ...init });
  Object.defineProperty(e, 'target', { value: target });
  return e;
}

describe('the keyboard performs the session actions', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  test('Ctrl+Z undoes, Ctrl+Shift+Z and Ctrl+Y redo, Ctrl+S saves, also with ⌘', () => {
    expect(actionFor(press('z'))).toBe(undoAction);
    expect(actionFor(press('Z', { shiftKey: true }))).toBe(redoAction);
    expect(actionFor(press('y'))).toBe(redoAction);
    expect(actionFor(press('s'))).toBe(saveAction);
    expect(actionFor(press('z', { ctrlKey: false, metaKey: true }))).toBe(undoAction);
  });

  test('Ctrl+Shift+P pins the current variant for comparison', () => {
    expect(actionFor(press('P', { shiftKey: true }))).toBe(pinAction);
    expect(actionFor(press('p'))).toBeUndefined();
  });

  test('a key without Ctrl or ⌘ performs nothing', () => {
    expect(actionFor(press('z', { ctrlKey: false }))).toBeUndefined();
  });

  test("inside a text field Ctrl+Z is the field's own undo, while Ctrl+S still saves", () => {
    const input = document.createElement('input');
    document.body.append(input);
    expect(actionFor(press('z', {}, input))).toBeUndefined();
    expect(actionFor(press('s', {}, input))).toBe(saveAction);
  });
});
