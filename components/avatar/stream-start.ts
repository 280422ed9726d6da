/**
 * Starting TalkingHead's audio stream without its hard timeout (docs/avatar.md, "The playback worklet").
 *
 * `streamStart` rebuilds the AudioContext at the stream's sample rate and loads the playback worklet with a fixed
 * 5 s timeout. On a loaded machine the side panel's thread can be busy for longer than that, the load "times out"
 * although it would have finished, and the stream never starts. So the context and the worklet are made ready as soon
 * as the avatar exists, with no deadline (the first reply is seconds away), and TalkingHead is told the worklet is
 * loaded; its own loader then never runs for that context. Should a start still fail, the stream is marked as not
 * started, so the next chunk tries again instead of writing into a stream that does not exist.
 */

/** The parts of TalkingHead that starting a stream touches (1.7.0; its internals, not its public surface). */
export interface StreamableHead {
  audioCtx: { sampleRate: number; state: string; audioWorklet: { addModule(url: string): Promise<void> } };
  isStreaming: boolean;
  workletLoaded: boolean;
  initAudioGraph(sampleRate: number): void;
  streamStart(opt: object, onAudioStart: () => void, onAudioEnd: () => void): Promise<void>;
}

export class StreamStarter {
  private ready: Promise<void> | null = null;

  constructor(
    private readonly head: StreamableHead,
    private readonly workletUrl: string,
    private readonly sampleRate: number,
    /** A problem worth a warning; the stream still falls back to TalkingHead's own loader or the next chunk. */
    private readonly warn: (message: string) => void,
  ) {}

  /** Makes the context and the worklet ready; never rejects. Called again, it returns the same promise. */
  prepare(): Promise<void> {
    this.ready ??= this.load();
    return this.ready;
  }

  private async load(): Promise<void> {
    const head = this.head;
    // The same rebuild streamStart would make at the first chunk (it skips it when the rate already matches).
    if (head.audioCtx.sampleRate !== this.sampleRate) head.initAudioGraph(this.sampleRate);
    const ctx = head.audioCtx;
    try {
      await ctx.audioWorklet.addModule(this.workletUrl);
    } catch (e) {
      // TalkingHead's own loader tries again at the first chunk.
      this.warn(`the playback worklet did not load ahead (${e instanceof Error ? e.message : String(e)})`);
      return;
    }
    // A context rebuilt meanwhile has not got the module; TalkingHead loads it into that one itself.
    if (head.audioCtx === ctx && ctx.state !== 'closed') head.workletLoaded = true;
  }

  /** Starts the stream once the worklet is ready; a failed start leaves the stream unstarted for the next chunk. */
  async start(opt: object, onAudioStart: () => void, onAudioEnd: () => void): Promise<void> {
    await this.prepare();
    try {
      await this.head.streamStart(opt, onAudioStart, onAudioEnd);
    } catch (e) {
      // streamStart marks the stream started before it loads the worklet.
      this.head.isStreaming = false;
      throw new Error(`The voice could not start playing: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
