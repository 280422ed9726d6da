/**
 * The echo canceller's reference, at its source: the audio at the end of the panel's graph, the node the speakers get
 * (after every gain, so a held or muted reply is silence here too). A framing worklet (the microphone's,
 * public/worklets/mic-framer.js, which cuts any stream into fixed blocks) is connected there; each block that is
 * not all zeros goes out with when its first sample is heard (docs/echo-canceller.md, "The reference").
 */
import { blockHeardAtMs } from './audible-onset';

/** The worklet file, as the extension serves it (public/). */
export const FRAMER_WORKLET_URL = '/worklets/mic-framer.js';
/**
 * Samples per block: 85 ms at the player's 24 kHz, about 12 messages a second on the panel's busy main thread (the
 * microphone's 512 would be 47). The canceller reads the reference when its echo arrives, well after the block.
 */
const TAP_FRAME = 2048;

export type PlayedListener = (samples: Float32Array<ArrayBuffer>, heardAtMs: number, sampleRate: number) => void;

interface FramerMessage {
  frame: Float32Array<ArrayBuffer>;
  rms: number;
  time: number;
}

export class PlayedTap {
  private readonly tapped = new WeakSet<BaseAudioContext>();

  constructor(
    private readonly onPlayed: PlayedListener,
    private readonly workletUrl = FRAMER_WORKLET_URL,
  ) {}

  /** Taps what `source` sends on (once per context: a rebuilt context is tapped again). Never rejects. */
  async attach(source: AudioNode): Promise<void> {
    const ctx = source.context as AudioContext;
    if (this.tapped.has(ctx)) return;
    this.tapped.add(ctx);
    try {
      await ctx.audioWorklet.addModule(this.workletUrl);
      const framer = new AudioWorkletNode(ctx, 'mic-framer', {
        numberOfInputs: 1,
        numberOfOutputs: 1,
        channelCount: 1,
        channelCountMode: 'explicit',
        channelInterpretation: 'speakers',
        processorOptions: { frame: TAP_FRAME },
      });
      framer.port.onmessage = (e: MessageEvent<FramerMessage>) => {
        const { frame, rms, time } = e.data;
        // Only blocks of exact zeros (nothing playing: the graph renders zeros) stay here; the reference is silence
        // wherever none came. A quiet block of the reply is sent: leaving it out would shift the reply's samples.
        if (!(rms > 0)) return;
        this.onPlayed(frame, blockHeardAtMs(ctx, time, frame.length, performance.now()), ctx.sampleRate);
      };
      // The worklet must be pulled by the graph, and adds nothing to what is heard.
      const mute = ctx.createGain();
      mute.gain.value = 0;
      source.connect(framer);
      framer.connect(mute).connect(ctx.destination);
    } catch (e) {
      // Without the reference the canceller has nothing to subtract; playback itself is unaffected.
      console.warn('[sidetalk] the played-audio tap did not start:', e instanceof Error ? e.message : String(e));
    }
  }
}
