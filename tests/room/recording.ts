/**
 * One PulseAudio source captured by the room rig (rig.ts): `parec` at the rig's rate, float32 mono, with the wall-clock
 * time of its first sample.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export const RIG_RATE = 48_000;
/** pacat / parec arguments for the rig's raw streams. */
export const RAW = ['--raw', '--format=float32le', `--rate=${RIG_RATE}`, '--channels=1', '--latency-msec=10'];

/** A capture of one source: float32 samples and the wall-clock time (Date.now()) of sample 0. */
export class Recording {
  private chunks: Buffer[] = [];
  private bytes = 0;
  startedAt = 0;
  private readonly proc: ChildProcess;

  constructor(env: NodeJS.ProcessEnv, source: string) {
    this.proc = spawn('parec', ['-d', source, ...RAW], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    this.proc.stdout!.on('data', (b: Buffer) => {
      // A block arrives after its samples were captured, late by however busy this process was: the earliest start
      // any block implies is the closest to the truth (the first block alone was up to a second late under load).
      this.chunks.push(b);
      this.bytes += b.length;
      const start = Date.now() - (this.bytes / 4 / RIG_RATE) * 1000;
      this.startedAt = this.startedAt === 0 ? start : Math.min(this.startedAt, start);
    });
  }

  /** Samples so far. */
  samples(): Float32Array {
    const all = Buffer.concat(this.chunks);
    return new Float32Array(all.buffer.slice(all.byteOffset, all.byteOffset + (all.length & ~3)));
  }

  /** The newest `ms` of samples (only the last blocks are copied: cheap enough to poll). */
  newest(ms: number): Float32Array {
    const end = this.bytes & ~3;
    const want = Math.round((ms / 1000) * RIG_RATE) * 4;
    const parts: Buffer[] = [];
    let first = this.bytes; // stream offset of the first byte of `parts`
    for (let i = this.chunks.length - 1; i >= 0 && this.bytes - first < want + 4; i--) {
      parts.unshift(this.chunks[i]!);
      first -= this.chunks[i]!.length;
    }
    const start = Math.max(first + ((4 - (first % 4)) % 4), end - want);
    const all = Buffer.concat(parts).subarray(start - first, end - first);
    return new Float32Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.length));
  }

  /** Samples between two wall-clock times. */
  between(from: number, to: number): Float32Array {
    const s = this.samples();
    const at = (t: number) => Math.max(0, Math.min(s.length, Math.round(((t - this.startedAt) / 1000) * RIG_RATE)));
    return s.slice(at(from), at(to));
  }

  stop(): void {
    this.proc.kill();
  }
}
