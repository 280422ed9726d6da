/**
 * Records every Web Audio connection made in a page (an init script patches AudioNode.prototype.connect/disconnect
 * before any page code runs), so a test can count the routes from a source node to the speakers. Web Audio has no
 * graph introspection of its own.
 */

/** Runs in the page before its scripts. Kept self-contained: it is serialised by addInitScript. */
export function installAudioGraphRecorder(): void {
  type Edge = { from: AudioNode; to: AudioNode | AudioParam; output: number; input: number };
  const edges: Edge[] = [];
  const proto = AudioNode.prototype as unknown as {
    connect: (...a: unknown[]) => unknown;
    disconnect: (...a: unknown[]) => unknown;
  };
  const connect = proto.connect;
  const disconnect = proto.disconnect;
  proto.connect = function (this: AudioNode, ...args: unknown[]) {
    const result = connect.apply(this, args);
    const [to, output = 0, input = 0] = args as [AudioNode | AudioParam, number?, number?];
    if (!edges.some((e) => e.from === this && e.to === to && e.output === output && e.input === input))
      edges.push({ from: this, to, output, input });
    return result;
  };
  proto.disconnect = function (this: AudioNode, ...args: unknown[]) {
    const result = disconnect.apply(this, args);
    const [first, output, input] = args as [unknown, number?, number?];
    for (let i = edges.length - 1; i >= 0; i--) {
      const e = edges[i]!;
      if (e.from !== this) continue;
      const drop =
        first === undefined ||
        (typeof first === 'number' && e.output === first) ||
        (first === e.to && (output === undefined || e.output === output) && (input === undefined || e.input === input));
      if (drop) edges.splice(i, 1);
    }
    return result;
  };
  /**
   * Audible routes from every AudioWorkletNode to its context's destination, counted over audio (not AudioParam)
   * edges; a path through a gain set to 0 is not audible (the played-audio tap pulls its worklet that way: it hears
   * the reply, it adds nothing to it). Worklets with no audible route are not listed.
   */
  (
    globalThis as unknown as { __sidetalkAudioRoutes: () => { worklets: number; routes: number[]; edges: number } }
  ).__sidetalkAudioRoutes = () => {
    const count = (node: AudioNode, dest: AudioNode, depth: number): number => {
      if (node === dest) return 1;
      if (depth > 32 || (node instanceof GainNode && node.gain.value === 0)) return 0;
      let n = 0;
      for (const e of edges) if (e.from === node && e.to instanceof AudioNode) n += count(e.to, dest, depth + 1);
      return n;
    };
    const audible = [...new Set(edges.map((e) => e.from))]
      .filter((n) => n instanceof AudioWorkletNode)
      .map((w) => count(w, w.context.destination, 0))
      .filter((routes) => routes > 0);
    return { worklets: audible.length, routes: audible, edges: edges.length };
  };
}

export interface AudioRoutes {
  worklets: number;
  routes: number[];
  edges: number;
}
