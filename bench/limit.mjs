// The floor that `npm run bench` holds compile + simulate to (bench/compile-simulate.ts runs it
// beside the target design and prints the ratio): a bare typed-array list scheduler, the least any
// simulator of this kind must do. Copied unchanged below this header from the team's shared
// benchmark (bench/limit.mjs of the shared notes, as issue 34 measured it) so the repository needs
// nothing outside itself.

// The floor for "simulate a pipeline schedule": per-device ordered op lists with data deps,
// list-scheduled in typed arrays with no objects per op. Any real simulator does at least this.
// Usage: node limit.mjs P M   (1F1B with split B/W: 3*P*M ops)
const P = +process.argv[2] || 64, M = +process.argv[3] || 4096;
const N = 3 * P * M;
const id = (t, s, m) => (t * P + s) * M + m; // t: 0 F, 1 B, 2 W
const dep1 = new Int32Array(N).fill(-1), dep2 = new Int32Array(N).fill(-1);
const cost = new Float64Array(N), end = new Float64Array(N);
for (let s = 0; s < P; s++) for (let m = 0; m < M; m++) {
  cost[id(0, s, m)] = 1; cost[id(1, s, m)] = 1; cost[id(2, s, m)] = 1;
  if (s > 0) dep1[id(0, s, m)] = id(0, s - 1, m);
  dep1[id(1, s, m)] = s < P - 1 ? id(1, s + 1, m) : id(0, s, m);
  dep2[id(1, s, m)] = id(0, s, m);
  dep1[id(2, s, m)] = id(1, s, m);
}
const t0 = performance.now();
// order per device: 1F1B (warmup P-s-1 forwards, then F,B,W pairs)
const order = new Int32Array(N); let k = 0; const start = new Int32Array(P + 1);
for (let s = 0; s < P; s++) {
  start[s] = k; const w = Math.min(P - s - 1, M); let f = 0, b = 0;
  for (; f < w; f++) order[k++] = id(0, s, f);
  while (b < M) { if (f < M) order[k++] = id(0, s, f++); order[k++] = id(1, s, b); order[k++] = id(2, s, b); b++; }
}
start[P] = k;
const ptr = new Int32Array(P), free = new Float64Array(P); end.fill(-1);
let progressed = true, done = 0;
while (done < N && progressed) {
  progressed = false;
  for (let s = 0; s < P; s++) {
    while (start[s] + ptr[s] < start[s + 1]) {
      const op = order[start[s] + ptr[s]];
      const a = dep1[op], b = dep2[op];
      if ((a >= 0 && end[a] < 0) || (b >= 0 && end[b] < 0)) break;
      const st = Math.max(free[s], a >= 0 ? end[a] : 0, b >= 0 ? end[b] : 0);
      end[op] = st + cost[op]; free[s] = end[op]; ptr[s]++; done++; progressed = true;
    }
  }
}
const t1 = performance.now();
let T = 0; for (let s = 0; s < P; s++) T = Math.max(T, free[s]);
console.log(JSON.stringify({ P, M, ops: N, makespan: T, ms: +(t1 - t0).toFixed(1), nsPerOp: +((t1 - t0) * 1e6 / N).toFixed(1) }));
