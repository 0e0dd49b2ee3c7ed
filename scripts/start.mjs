// `npm start`: install what is missing, then show the compiler and simulator on the default example.
// (Once the web app and API exist, this starts the server instead.)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureDeps, ROOT } from './ensure.mjs';

ensureDeps();
const bin = join(ROOT, 'apps/cli/bin/stagecraft.mjs');
const example = join('examples', '1f1b-p4-m8.json');
const r = spawnSync(process.execPath, [bin, 'simulate', example, ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
