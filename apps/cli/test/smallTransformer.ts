/** A transformer small enough that a layout search of it on two GPUs ends in seconds. */
export function smallTransformer(layers: number): object {
  return {
    format: 'stagecraft/design@3',
    name: 'small',
    model: {
      kind: 'transformer',
      layers,
      hidden: 256,
      ffnHidden: 768,
      heads: 4,
      kvHeads: 2,
      vocab: 4096,
      seqLen: 512,
      microbatchSize: 1,
    },
    // Link figures of a DGX H100 (the dgx-h100 preset), on a node of two GPUs.
    cluster: {
      kind: 'custom',
      nodes: 1,
      gpusPerNode: 2,
      gpu: { name: 'H100', peakTflops: 989, memoryGiB: 80 },
      intraNode: { bandwidthGBps: 450, latencyUs: 3 },
      interNode: { bandwidthGBps: 50, latencyUs: 5 },
    },
    directives: [],
  };
}
