/**
 * The Mimi decoder's side of the overlapped loop (docs/tts.md, "Overlapped decode"): one `mimi_decoder` session on
 * its own ORT instance, its recurrent states kept here between frames, requests run strictly in arrival order so
 * PCM leaves in the order the latents came. `decoder.worker.ts` wires it to `self`; Node drives it directly.
 */
import type { StateEntry } from '../../../core/tts/bundle-manifest';
import { decoderRequestSchema, type DecoderEvent } from './decoder-protocol';
import type { OrtLike, OrtSessionLike } from './ort-types';
import { freshStates, threadStates, type Feeds } from './state';

export interface DecoderHostDeps {
  ort: OrtLike & { env?: { wasm?: { numThreads?: number } } };
  post: (event: DecoderEvent, transfer?: Transferable[]) => void;
  /** ORT session options (Node tests: the CPU provider); default the product's WASM options. */
  sessionOptions?: object;
}

export class DecoderHost {
  private session: OrtSessionLike | null = null;
  private manifest: StateEntry[] = [];
  private latentDim = 0;
  private states: Feeds = {};
  private queue: Promise<void> = Promise.resolve();
  private droppedThrough = -1;
  /** Decoder runs so far (tests check that a dropped request never ran). */
  runs = 0;

  constructor(private readonly deps: DecoderHostDeps) {}

  /** Handles one message; resolves when the work it queued is done (tests await it). */
  handle(raw: unknown): Promise<void> {
    const parsed = decoderRequestSchema.safeParse(raw);
    if (!parsed.success) {
      this.deps.post({ type: 'error', message: `bad decoder message: ${parsed.error.message.slice(0, 300)}` });
      return Promise.resolve();
    }
    const msg = parsed.data;
    if (msg.type === 'drop') {
      this.droppedThrough = Math.max(this.droppedThrough, msg.through);
      return Promise.resolve();
    }
    const work = msg.type === 'init' ? () => this.init(msg) : () => this.decode(msg);
    const run = this.queue.then(work);
    this.queue = run.catch(() => {});
    return run;
  }

  private async init(msg: { graph: ArrayBuffer | Uint8Array; manifest: StateEntry[]; latentDim: number; numThreads?: number }) {
    try {
      const wasm = this.deps.ort.env?.wasm;
      if (msg.numThreads && wasm) wasm.numThreads = msg.numThreads;
      const bytes = msg.graph instanceof Uint8Array ? msg.graph : new Uint8Array(msg.graph);
      this.session = await this.deps.ort.InferenceSession.create(
        bytes,
        this.deps.sessionOptions ?? { executionProviders: ['wasm'], graphOptimizationLevel: 'all' },
      );
      this.manifest = msg.manifest;
      this.latentDim = msg.latentDim;
      this.deps.post({ type: 'ready', threads: wasm?.numThreads ?? msg.numThreads ?? 1 });
    } catch (e) {
      this.deps.post({ type: 'error', message: `decoder load failed: ${(e as Error).message}` });
    }
  }

  private async decode(msg: { seq: number; latent: Float32Array; frames: number; fresh: boolean }) {
    if (msg.seq <= this.droppedThrough) return;
    const { ort } = this.deps;
    try {
      if (!this.session) throw new Error('decoder not initialised');
      if (msg.latent.length !== msg.frames * this.latentDim)
        throw new Error(`latent has ${msg.latent.length} values, expected ${msg.frames} × ${this.latentDim}`);
      if (msg.fresh) this.states = freshStates(ort, this.manifest);
      const startAbs = performance.timeOrigin + performance.now();
      this.runs++;
      const out = await this.session.run({
        latent: new ort.Tensor('float32', msg.latent, [1, msg.frames, this.latentDim]),
        ...this.states,
      });
      this.states = threadStates(this.manifest, out);
      const endAbs = performance.timeOrigin + performance.now();
      // A fresh array (the output's own buffer may be a view into something larger) so it can be transferred.
      const pcm = (out.audio_frame!.data as Float32Array).slice();
      this.deps.post({ type: 'pcm', seq: msg.seq, pcm, startAbs, endAbs }, [pcm.buffer]);
    } catch (e) {
      this.deps.post({ type: 'error', seq: msg.seq, message: (e as Error).message });
    }
  }
}
