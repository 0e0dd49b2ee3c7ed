/**
 * The usage of the command as a whole, in a module of its own that imports nothing: `stagecraft
 * --help` prints it without loading the compiler (bin.ts).
 */
export const GLOBAL_USAGE = `Usage: stagecraft <command> [options]

Commands:
  validate <design>              check a design file; print "ok: <name> (<n> directives)"
  compile <design> [-o <file>]   compile a design to a stagecraft/plan@2 per-device plan
  simulate <design> [--json]     compile and simulate a design; print its timeline metrics
  export <design> --format <f>   write the design as piper, torch-csv, chrome-trace or plan
  import <file> --format <f>     read a torch-csv schedule or a Piper program into a design
  compare <design> <design> …    simulate designs and print them side by side
  calibrate <design> --trace <f> fit a design's costs to measured traces and replay it
  run <design | plan.json>       run the plan on PyTorch (one process per device) and compare
                                 it with a single-device run
  plan <design> [--max-memory G] search layouts (or per-device orders) for the fastest design
                                 that fits; the Pareto front (see "stagecraft plan --help")
  serve [--port <n>] [--db <f>]  the API and the web app on 127.0.0.1 (see "stagecraft serve --help")

Global options:
  --max-ops <n>           refuse designs whose DAG would exceed n ops (default 2,000,000)
  --max-input-bytes <n>   refuse input files larger than n bytes (default 67108864, 64 MiB);
                          only regular files are read (not devices, named pipes or directories)
  -h, --help              show usage (of a command with "stagecraft <command> --help")
  --version               print the version

Exit status: 0 on success, 1 on any error (bad arguments, unreadable file, invalid design).
Errors are printed to stderr, one per line, as "error: <path>: <reason>".`;
