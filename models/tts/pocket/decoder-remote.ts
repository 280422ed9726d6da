/**
 * The loop's handle on the Mimi decoder in its own ORT instance (decoder-host.ts behind a DecoderPort): latents go
 * out numbered, each `decode` resolves with that latent's PCM; a dropped (cancelled) request rejects at once and its
 * late answer, if any, is ignored. Events are validated (decoder-protocol.ts); a bad event or a worker error marks
 * the decoder broken and fails everything pending.
 */
import type { StateEntry } from '../../../core/tts/bundle-manifest';
import { decoderEventSchema, type DecoderPort } from './decoder-protocol';

export class DecoderStartError extends Error {
  override name = 'DecoderStartError';
}

export interface DecodedPcm {
  pcm: Float32Array;
  /** timeOrigin + now() around the decoder's run. */
  startAbs: number;
  endAbs: number;
}

interface Pending {
  resolve: (v: DecodedPcm) => void;
  reject: (e: Error) => void;
}

export interface DecoderStart {
  graph: Uint8Array;
  manifest: StateEntry[];
  latentDim: number;
  numThreads?: number;
  timeoutMs: number;
}

export class DecoderRemote {
  private readonly pending = new Map<number, Pending>();
  private nextSeq = 0;
  private broken: Error | null = null;

  private constructor(
    private readonly port: DecoderPort,
    /** Threads the decoder's instance runs with (its `ready` answer). */
    readonly threads: number,
  ) {
    port.onmessage = (e) => this.onEvent(e.data);
    port.onerror = (e) => this.fail(new Error(`decoder worker error: ${String((e as { message?: unknown })?.message ?? e)}`));
  }

  /** Sends `init` and waits for `ready`; terminates the port and throws DecoderStartError otherwise. */
  static async start(port: DecoderPort, opts: DecoderStart): Promise<DecoderRemote> {
    try {
      const threads = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer in ${opts.timeoutMs} ms`)), opts.timeoutMs);
        const settle = (f: () => void) => {
          clearTimeout(timer);
          f();
        };
        port.onerror = (e) => settle(() => reject(new Error(String((e as { message?: unknown })?.message ?? e))));
        port.onmessage = (e) => {
          const ev = decoderEventSchema.safeParse(e.data);
          if (!ev.success) settle(() => reject(new Error('bad decoder event')));
          else if (ev.data.type === 'ready') settle(() => resolve(ev.data.type === 'ready' ? ev.data.threads : 1));
          else if (ev.data.type === 'error') settle(() => reject(new Error(ev.data.type === 'error' ? ev.data.message : '')));
        };
        // A copy (not `slice`: on a Node Buffer that is a view): the caller keeps its bytes for its own session.
        const graph = new Uint8Array(opts.graph);
        port.postMessage(
          { type: 'init', graph, manifest: opts.manifest, latentDim: opts.latentDim, numThreads: opts.numThreads },
          [graph.buffer],
        );
      });
      return new DecoderRemote(port, threads);
    } catch (e) {
      port.onmessage = null;
      port.terminate();
      throw new DecoderStartError(`separate Mimi decoder did not start: ${(e as Error).message}`);
    }
  }

  /** Queues one decode; `fresh` starts the decoder's states from the manifest (a new chunk). */
  decode(latent: Float32Array, frames: number, fresh: boolean): Promise<DecodedPcm> {
    if (this.broken) return Promise.reject(this.broken);
    const seq = this.nextSeq++;
    const copy = latent.slice();
    const done = new Promise<DecodedPcm>((resolve, reject) => this.pending.set(seq, { resolve, reject }));
    this.port.postMessage({ type: 'decode', seq, latent: copy, frames, fresh }, [copy.buffer]);
    return done;
  }

  /** Cancels every decode still pending: the decoder skips those it has not started, their promises reject. */
  dropPending(): void {
    if (this.pending.size === 0) return;
    this.port.postMessage({ type: 'drop', through: this.nextSeq - 1 });
    const dropped = new DOMException('speech cancelled', 'AbortError');
    for (const p of this.pending.values()) p.reject(dropped);
    this.pending.clear();
  }

  get inFlight(): number {
    return this.pending.size;
  }

  get failure(): Error | null {
    return this.broken;
  }

  close(): void {
    this.fail(new Error('decoder closed'));
    this.port.onmessage = null;
    this.port.terminate();
  }

  private onEvent(raw: unknown) {
    const ev = decoderEventSchema.safeParse(raw);
    if (!ev.success) return this.fail(new Error(`bad decoder event: ${ev.error.message.slice(0, 200)}`));
    const e = ev.data;
    if (e.type === 'ready') return;
    // A failed run leaves the decoder's states unknown: nothing after it can be trusted.
    if (e.type === 'error') return this.fail(new Error(`decoder: ${e.message}`));
    const p = this.pending.get(e.seq);
    if (!p) return; // dropped
    this.pending.delete(e.seq);
    p.resolve({ pcm: e.pcm, startAbs: e.startAbs, endAbs: e.endAbs });
  }

  private fail(err: Error) {
    this.broken ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}
