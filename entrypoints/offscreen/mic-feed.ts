import { FeedLagWatch } from '../../core/lifecycle/feed-lag';
import type { AudioSink } from '../../core/protocol';
import type { DuplexEngine } from '../../core/engine/duplex-engine';
import type { MicCapture } from '../../models/audio/mic-capture';
import { SileroVadJs, type SileroWeights } from '../../models/vad/silero-js';
import { UnprocessedVad } from '../../models/vad/unprocessed-vad';

/**
 * Feeds the microphone's frames to the engine with their speech probabilities, and tells the side panel when the feed
 * runs behind real time (it shares this document's thread and draws fewer avatar frames meanwhile: docs/avatar.md,
 * "When the microphone falls behind"). Returns the function that stops the feed.
 */
export function feedEngine(
  mic: MicCapture,
  weights: SileroWeights,
  engine: Pick<DuplexEngine, 'onFrame' | 'listensOverReply'>,
  audio: Pick<AudioSink, 'feedBehind'>,
): () => void {
  // A new feed starts with a fresh recurrent state: the last one ended whenever the microphone last stopped.
  const vad = new SileroVadJs(weights);
  // Its own recurrent state: the unprocessed microphone is a different signal (docs/echo.md).
  const rawVad = new UnprocessedVad(new SileroVadJs(weights));
  const lag = new FeedLagWatch();
  const stop = mic.onFrame((frame) => {
    const now = performance.now();
    const behind = lag.frame(now - frame.capturedAt, now);
    if (behind !== null) audio.feedBehind?.(behind);
    const prob = vad.processSync(frame.samples);
    const raw = rawVad.frame(frame, engine.listensOverReply, now);
    engine.onFrame({ pcm: frame.samples, prob, capturedAt: frame.capturedAt, ...(raw ? { raw } : {}) });
  });
  return () => {
    stop();
    // No feed, no lag: the panel draws at its full rates again.
    if (lag.isBehind) audio.feedBehind?.(false);
  };
}
