/**
 * Each reply's audio as it was handed to the player, at the microphone's rate (16 kHz): the reference that the
 * microphone is matched against, after a reply (`tail`, docs/echo.md "Matching the reply's audio") and while it plays
 * (`span`, docs/echo.md "Matching a burst over the reply"). Positions are seconds of the reply's own audio from its
 * start, the axis the player's played time is on (gaps between runs are not in it). The newest `keepSeconds` of the
 * last few replies are kept; nothing of it leaves the document.
 */
const RATE = 16_000;
const KEEP_REPLIES = 3;
/** What `tail` returns: the end of a reply, where an echo after it comes from. */
const TAIL_SECONDS = 4;

interface Reply {
  chunks: Float32Array[];
  /** Samples kept (the sum of the chunks' lengths), and how many were dropped from the start before the first. */
  samples: number;
  dropped: number;
}

export class ReplyAudioLog {
  private readonly replies = new Map<string, Reply>();

  /**
   * `keepSeconds`: how much of one reply is kept. TTS runs ahead of playback, so the audio playing now can be many
   * seconds older than the newest handed over; a burst over the reply searches the audio near the played position.
   */
  constructor(private readonly keepSeconds = 30) {}

  /** A chunk sent to the player for `turnId`, at its own rate. */
  push(turnId: string, samples: Float32Array, sampleRate: number): void {
    let reply = this.replies.get(turnId);
    if (!reply) {
      reply = { chunks: [], samples: 0, dropped: 0 };
      this.replies.set(turnId, reply);
      for (const id of this.replies.keys()) if (this.replies.size > KEEP_REPLIES) this.replies.delete(id);
    }
    const chunk = resampleTo16k(samples, sampleRate);
    reply.chunks.push(chunk);
    reply.samples += chunk.length;
    const keep = this.keepSeconds * RATE;
    while (reply.chunks.length > 1 && reply.samples - reply.chunks[0]!.length >= keep) {
      const old = reply.chunks.shift()!;
      reply.samples -= old.length;
      reply.dropped += old.length;
    }
  }

  /** The engine's `replyAudio` stage (core/engine/types.ts): the tail, or the range asked for. */
  audio(turnId: string, range?: { fromSeconds: number; toSeconds: number }): Float32Array | null {
    return range ? this.span(turnId, range.fromSeconds, range.toSeconds) : this.tail(turnId);
  }

  /** The reply's newest 4 s (or all of it, if shorter); null when nothing of it was sent. */
  tail(turnId: string): Float32Array | null {
    const reply = this.replies.get(turnId);
    if (!reply || reply.samples === 0) return null;
    const end = reply.dropped + reply.samples;
    return this.span(turnId, (end - TAIL_SECONDS * RATE) / RATE, end / RATE);
  }

  /**
   * The reply's audio from `fromSeconds` to `toSeconds` of it, clipped to what was handed over and is still kept;
   * null when none of that range is.
   */
  span(turnId: string, fromSeconds: number, toSeconds: number): Float32Array | null {
    const reply = this.replies.get(turnId);
    if (!reply) return null;
    const from = Math.max(reply.dropped, Math.round(fromSeconds * RATE));
    const to = Math.min(reply.dropped + reply.samples, Math.round(toSeconds * RATE));
    if (to <= from) return null;
    const out = new Float32Array(to - from);
    let at = reply.dropped;
    for (const c of reply.chunks) {
      const lo = Math.max(from, at);
      const hi = Math.min(to, at + c.length);
      if (hi > lo) out.set(c.subarray(lo - at, hi - at), lo - from);
      at += c.length;
      if (at >= to) break;
    }
    return out;
  }
}

/**
 * Linear interpolation to 16 kHz. What it folds back from above 8 kHz lands above the band the matcher weighs
 * (core/engine/echo-match.ts), so no filter first.
 */
export function resampleTo16k(x: Float32Array, rate: number): Float32Array {
  if (rate === RATE) return x.slice();
  const out = new Float32Array(Math.floor((x.length * RATE) / rate));
  const step = rate / RATE;
  for (let i = 0; i < out.length; i++) {
    const p = i * step;
    const j = Math.floor(p);
    const f = p - j;
    out[i] = (x[j] ?? 0) * (1 - f) + (x[j + 1] ?? x[j] ?? 0) * f;
  }
  return out;
}
