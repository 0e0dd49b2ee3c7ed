/** Where the Python runtime is: the interpreter with torch, and the checkout's runtime/ folder. */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository's runtime/ folder, from this file's place in packages/launch/src. The runtime
 * starts there, so `python3 -m stagecraft_runtime` finds this checkout's package with no
 * PYTHONPATH (one installed by `pip install -e runtime` is the same code).
 */
export const RUNTIME_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../runtime');

/** The interpreter with torch: STAGECRAFT_PYTHON, else Debian's /usr/bin/python3, else python3. */
export function pythonInterpreter(): string {
  const env = process.env.STAGECRAFT_PYTHON;
  if (env) return env;
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}
