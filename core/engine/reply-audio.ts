/**
 * The newest seconds of each reply's audio as it was handed to the player, at the microphone's rate (16 kHz): the
 * reference that `matchEcho` looks for in the microphone after a reply (docs/echo.md, "Matching the reply's audio").
 * Kept for the last few replies only; nothing of it leaves the document.
 */
const RATE = 16_000;
const KEEP_REPLIES = 3;

export class ReplyAudioLog {
  private readonly replies = new Map<string, { chunks: Float32Array[]; samples: number }>();

  constructor(private readonly keepSeconds = 4) {}

  /** A chunk sent to the player for `turnId`, at its own rate. */
  push(turnId: string, samples: Float32Array, sampleRate: number): void {
    let reply = this.replies.get(turnId);
    if (!reply) {
      reply = { chunks: [], samples: 0 };
      this.replies.set(turnId, reply);
      for (const id of this.replies.keys()) if (this.replies.size > KEEP_REPLIES) this.replies.delete(id);
    }
    const chunk = resample(samples, sampleRate);
    reply.chunks.push(chunk);
    reply.samples += chunk.length;
    const keep = this.keepSeconds * RATE;
    while (reply.chunks.length > 1 && reply.samples - reply.chunks[0]!.length >= keep) {
      reply.samples -= reply.chunks.shift()!.length;
    }
  }

  /** The reply's newest `keepSeconds` (or all of it, if shorter); null when nothing of it was sent. */
  tail(turnId: string): Float32Array | null {
    const reply = this.replies.get(turnId);
    if (!reply || reply.samples === 0) return null;
    const all = new Float32Array(reply.samples);
    let at = 0;
    for (const c of reply.chunks) {
      all.set(c, at);
      at += c.length;
    }
    return all.subarray(Math.max(0, all.length - this.keepSeconds * RATE));
  }
}

/**
 * Linear interpolation to 16 kHz. What it folds back from above 8 kHz lands above the band the matcher weighs
 * (core/engine/echo-match.ts), so no filter first.
 */
function resample(x: Float32Array, rate: number): Float32Array {
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
