/**
 * What the speakers played, on the receiving document's clock: the echo canceller's reference (docs/echo-canceller.md,
 * "The reference"). The side panel taps the audio at the end of its graph and reports each block with the time its
 * first sample is heard; this keeps the last few seconds of them and answers "what was playing from t for n samples"
 * at the microphone's rate, silence where nothing played (a held reply, a drained player, between replies).
 *
 * Blocks of one run arrive back to back, but each carries its own mapping from the audio clock to this one, which
 * wobbles by a millisecond or two: a block that starts within `SNAP_MS` of the previous one's end is taken to follow
 * it exactly, so the reference has no clicks or overlaps that no speaker played.
 */
const SNAP_MS = 4;
/** How much of what was played is kept: more than the echo path's delay and a busy panel's lateness together. */
export const REFERENCE_KEEP_MS = 4_000;

interface Block {
  startMs: number;
  rate: number;
  samples: Float32Array;
}

const endOf = (b: Block) => b.startMs + (b.samples.length * 1000) / b.rate;

export class ReferenceTimeline {
  private blocks: Block[] = [];

  constructor(private readonly keepMs = REFERENCE_KEEP_MS) {}

  /** A block the speakers played from `startMs` (this document's clock), at `rate`. */
  add(startMs: number, samples: Float32Array, rate: number): void {
    if (!Number.isFinite(startMs) || !(rate > 0) || samples.length === 0) return;
    const last = this.blocks.at(-1);
    let start = startMs;
    if (last) {
      const end = endOf(last);
      if (Math.abs(start - end) < SNAP_MS) start = end;
      // Earlier than the last block's end by more than a wobble: the clocks disagree; the newer mapping wins, and the
      // blocks it overlaps go.
      else if (start < end) this.blocks = this.blocks.filter((b) => endOf(b) <= start);
    }
    this.blocks.push({ startMs: start, rate, samples });
    const horizon = start - this.keepMs;
    while (this.blocks.length > 1 && endOf(this.blocks[0]!) < horizon) this.blocks.shift();
  }

  /** When the oldest block kept starts (Infinity before any). */
  get startMs(): number {
    return this.blocks[0]?.startMs ?? Infinity;
  }

  /** When the newest block ends (-Infinity before any). */
  get endMs(): number {
    const last = this.blocks.at(-1);
    return last ? endOf(last) : -Infinity;
  }

  /** `length` samples at `rate` from `startMs`: what played then (linear interpolation), 0 where nothing did. */
  read(startMs: number, length: number, rate = 16_000): Float32Array {
    const out = new Float32Array(length);
    const stepMs = 1000 / rate;
    let b = 0;
    for (let i = 0; i < length; i++) {
      const t = startMs + i * stepMs;
      while (b < this.blocks.length && endOf(this.blocks[b]!) <= t) b++;
      const block = this.blocks[b];
      if (!block || t < block.startMs) continue;
      const x = ((t - block.startMs) * block.rate) / 1000;
      const k = Math.floor(x);
      const a = block.samples[k] ?? 0;
      // The sample after the block's last is the next block's first when they follow each other.
      const next = block.samples[k + 1] ?? (this.blocks[b + 1]?.startMs === endOf(block) ? this.blocks[b + 1]!.samples[0]! : 0);
      out[i] = a + (next - a) * (x - k);
    }
    return out;
  }

  clear(): void {
    this.blocks = [];
  }
}
