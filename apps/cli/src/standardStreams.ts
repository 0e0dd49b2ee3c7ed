/**
 * What the CLI does when its own output cannot be written. Node reports a failed write to stdout
 * (a full disk, `> /dev/full`, a closed pipe) as an 'error' event after the command has returned,
 * and without a listener that event is a crash with a stack trace. A reader that stops early
 * (`| head -1`) is not a failure: the output simply ends there.
 */
import { describeSystemError } from './systemErrors.ts';

let guarded = false;

/** Installs, once per process, the listeners that turn output errors into an exit status. */
export function guardStandardStreams(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    writeQuietly(`error: stdout: ${describeSystemError(e, 'write')}\n`);
    process.exit(1);
  });
  // Errors are written to stderr: when that fails too, the exit status is all that is left.
  process.stderr.on('error', () => {
    process.exit(1);
  });
}

function writeQuietly(text: string): void {
  try {
    process.stderr.write(text);
  } catch {
    // stderr is gone as well; the exit status still says the command failed.
  }
}
