/** Runs the real `stagecraft` bin in a child process, as a user's shell would. */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../bin/stagecraft.mjs', import.meta.url));
export const EXAMPLES = join(ROOT, 'examples');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function stagecraft(...args: string[]): Promise<Run> {
  return stagecraftWithin(0, ...args);
}

/** Exit status of a run stopped for taking too long, as timeout(1) reports it. */
export const TIMED_OUT = 124;

/**
 * The environment of every CLI run here: no debug stacks, and runs of the 4-device test plans
 * allowed on a machine with fewer CPUs (CI has 2), which `stagecraft run` otherwise refuses.
 */
const TEST_ENV = { STAGECRAFT_DEBUG: '', STAGECRAFT_RUNTIME_OVERSUBSCRIBE: '1' };

/** Runs the CLI, stopping it after `ms` (0: never), so a command that hangs fails its test. */
export function stagecraftWithin(ms: number, ...args: string[]): Promise<Run> {
  return stagecraftWithEnv({}, ms, ...args);
}

/** stagecraftWithin with `env` over the test environment (a value '' removes a variable's effect). */
export function stagecraftWithEnv(env: Record<string, string>, ms: number, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        timeout: ms,
        killSignal: 'SIGKILL',
        env: { ...process.env, ...TEST_ENV, ...env },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : error.killed ? TIMED_OUT : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Runs the CLI with its stdout on `stdout`: an open file descriptor (of /dev/full, say), or a
 * pipe whose reader has gone before the first byte, as `| head -1` leaves it. stdout is not kept.
 */
export function stagecraftWritingTo(stdout: number | 'closed pipe', ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      stdio: ['ignore', stdout === 'closed pipe' ? 'pipe' : stdout, 'pipe'],
      env: { ...process.env, ...TEST_ENV },
      timeout: 30_000,
      killSignal: 'SIGKILL',
    });
    child.stdout?.destroy();
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code: code ?? TIMED_OUT, stdout: '', stderr }));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'stagecraft-cli-'));
let files = 0;

/** Writes `content` (a value is written as JSON) to a fresh file and returns its path. */
export function tempFile(content: unknown, name = `design-${++files}.json`): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

export function tempPath(name: string): string {
  return join(dir, name);
}
