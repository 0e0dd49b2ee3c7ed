/** Program list operations: reorder, toggle (the directives' `enabled` field), delete, insert. */
import type { Design, Directive } from '@stagecraft/ir';

export function withDirectives(design: Design, directives: Directive[]): Design {
  return { ...design, directives };
}

export function insertDirective(design: Design, directive: Directive, at = design.directives.length): Design {
  const list = design.directives.slice();
  list.splice(Math.max(0, Math.min(at, list.length)), 0, directive);
  return withDirectives(design, list);
}

export function replaceDirective(design: Design, index: number, directive: Directive): Design {
  const list = design.directives.slice();
  list[index] = directive;
  return withDirectives(design, list);
}

/** Moves the directive at `from` so that it ends up at index `to`. */
export function moveDirective(design: Design, from: number, to: number): Design {
  const list = design.directives.slice();
  const [d] = list.splice(from, 1);
  if (!d) return design;
  list.splice(Math.max(0, Math.min(to, list.length)), 0, d);
  return withDirectives(design, list);
}

export function toggleDirective(design: Design, index: number): Design {
  const d = design.directives[index];
  if (!d) return design;
  const next = { ...d } as Directive;
  if (d.enabled === false) delete next.enabled;
  else next.enabled = false;
  return replaceDirective(design, index, next);
}

export function deleteDirective(design: Design, index: number): Design {
  return withDirectives(
    design,
    design.directives.filter((_, i) => i !== index),
  );
}
