/** Where a command writes: stdout for results, stderr for errors. Tests pass their own. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

export const processIo: Io = {
  out: (text) => process.stdout.write(line(text)),
  err: (text) => process.stderr.write(line(text)),
};

/** An `Io` that keeps what was written, for running commands in-process. */
export function bufferIo(): Io & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out: (text: string) => void (io.stdout += line(text)),
    err: (text: string) => void (io.stderr += line(text)),
  };
  return io;
}
