/**
 * The echo path from the side panel's speakers to the offscreen document's microphone, learned from both ends: the
 * playback level the panel reports and the level the microphone delivers after the browser's echo canceller. Both
 * go onto one 32 ms grid; the delay is the lag at which the two envelopes correlate best (Pearson), the coupling the
 * least-squares slope at that lag. With them the engine knows how loud its own echo should be at any moment, also
 * after the reply ended while the delayed tail is still arriving (docs/echo.md).
 *
 * Why not a fixed look-back window: the delay was measured at 60 ms in one run and over a second in another on the
 * same machine (audio stacks under load queue the capture), and Chrome's canceller barely touches an echo that late.
 */
import { engineTunables as T } from '../tunables';
import { FRAME_MS } from './audio-frames';
import type { EchoUnjudged, TurnStageFields } from './types';

/**
 * Frames of history kept (16 s): `likeness` looks back an utterance plus `echoMaxDelayMs + echoDecayMs`, which the
 * tunables allow up to 7 s; the estimate, its 3 s window plus up to 4 s of delay.
 */
const SLOTS = 512;
/** The envelopes are compared over this many recent frames (3 s). */
const WINDOW = 94;
/** A new estimate every this many microphone frames (256 ms). */
const EVERY = 8;
/** Frames either side of the delay whose playback may still be heard (the room's reverb); more when levels are sparse. */
const SPREAD = 3;
/**
 * While the user may be talking over the reply (a barge candidate in the window), a new estimate may not raise the
 * coupling by more than this factor: the fit would take the user's voice for echo (docs/echo.md, "The echo path").
 */
const DOUBLE_TALK_MAX_RISE = 1.5;

export interface EchoEstimate {
  delayMs: number;
  /** Microphone RMS per unit of playback RMS at that delay. */
  coupling: number;
  /** Normalised correlation of the two envelopes at that delay (0..1). */
  correlation: number;
}

/** `EchoPath.likeness`: Pearson's r at the end-aligned lag, or why there is none; `endLagMs` for the trace. */
export interface EchoLikeness {
  r: number | null;
  endLagMs?: number;
  why?: EchoUnjudged;
  /**
   * For the trace only (nothing decides on it): the best r over every lag up to the suspect window, same frames and
   * guard, and its lag. Tells a tail that follows the reply at another lag (its delay moved) from one that follows it
   * at none (its envelope was changed on the way).
   */
  scan?: { r: number; lagMs: number };
}

class Envelope {
  private readonly values = new Float64Array(SLOTS);
  private readonly frames = new Float64Array(SLOTS).fill(-1);

  set(k: number, v: number): void {
    this.values[k % SLOTS] = v;
    this.frames[k % SLOTS] = k;
  }

  /** The value at frame k, or null when nothing was recorded there (too old, or never). */
  get(k: number): number | null {
    return k >= 0 && this.frames[k % SLOTS] === k ? this.values[k % SLOTS]! : null;
  }
}

export class EchoPath {
  private readonly playback = new Envelope();
  private readonly mic = new Envelope();
  private lastLevel: { k: number; rms: number } | null = null;
  private newestMic = -1;
  private sinceEstimate = 0;
  private current: EchoEstimate | null = null;
  private fedFrames = 0;
  /** The longest delay estimated lately (it drifts when an audio stack under load queues more): decays 125 ms/s. */
  private longest = 0;
  private looked = false;
  /** Mean time between level reports (an average over the last ~10): the delay is only as sharp as that. */
  private levelGapMs = FRAME_MS;
  /** The newest microphone frame that may hold the user's voice over the reply (a barge candidate). */
  private nearEndK = -Infinity;
  /** The coupling learned before that voice began: during it the estimate may not climb above it step by step. */
  private couplingBeforeNearEnd = 0;

  get estimate(): EchoEstimate | null {
    return this.current;
  }

  /**
   * True once enough playback was heard to have found an echo at any delay up to `echoMaxDelayMs` (that delay and
   * about 1 s more of playback, once per session): before that, a missing estimate may only mean the echo has not
   * arrived yet.
   */
  get evaluated(): boolean {
    return this.looked;
  }

  /** The longest delay estimated lately, for how long a finished reply's echo may still arrive. */
  get longestDelayMs(): number {
    return Math.max(this.longest, this.current?.delayMs ?? 0);
  }

  /** The loudest playback within the longest delay looked for: what may be arriving at the microphone, at most. */
  recentPlayback(at: number): number {
    const k = Math.floor(at / FRAME_MS);
    let max = 0;
    for (let i = k - Math.round(T.echoMaxDelayMs / FRAME_MS) - SPREAD; i <= k; i++) max = Math.max(max, this.played(i));
    return max;
  }

  /**
   * A playback level at clock time `at`. The panel reports one per avatar frame (5–60 a second), so the frames
   * between two reports are interpolated; a gap longer than half a second is playback that stopped.
   */
  onPlayback(at: number, rms: number): void {
    const k = Math.floor(at / FRAME_MS);
    const prev = this.lastLevel;
    if (prev && k > prev.k && k - prev.k <= 500 / FRAME_MS) {
      this.levelGapMs += ((k - prev.k) * FRAME_MS - this.levelGapMs) / 10;
      for (let i = prev.k + 1; i < k; i++) this.playback.set(i, prev.rms + ((rms - prev.rms) * (i - prev.k)) / (k - prev.k));
    }
    this.playback.set(k, prev?.k === k ? Math.max(prev.rms, rms) : rms);
    this.lastLevel = { k, rms: prev?.k === k ? Math.max(prev.rms, rms) : rms };
  }

  /** One microphone frame ending at clock time `at` (its capture time where known). */
  onMic(at: number, rms: number): void {
    const k = Math.floor(at / FRAME_MS);
    this.mic.set(k, rms);
    this.newestMic = Math.max(this.newestMic, k);
    this.fedFrames++;
    if (++this.sinceEstimate >= EVERY) {
      this.sinceEstimate = 0;
      this.reestimate();
    }
  }

  /**
   * The microphone frame at `at` may be the user talking over the reply (a barge candidate, or voiced and louder than
   * the floor and than this path explains: barge-detector.ts). Until it has
   * left the estimate's window, the path does not learn a louder echo from the fit (DOUBLE_TALK_MAX_RISE).
   */
  markNearEnd(at: number): void {
    const k = Math.floor(at / FRAME_MS);
    if (!this.inDoubleTalk(k)) this.couplingBeforeNearEnd = this.current?.coupling ?? 0;
    this.nearEndK = Math.max(this.nearEndK, k);
  }

  /** A voice over the reply within the estimate's window ending at frame `end`, on a path already known. */
  private inDoubleTalk(end: number): boolean {
    return this.current !== null && this.nearEndK > end - WINDOW;
  }

  /**
   * A microphone frame while nothing is learned from it (after the reply): kept so `likeness` can compare an
   * utterance with the playback that may have caused it, without moving the path learned while the reply played.
   */
  recordMic(at: number, rms: number): void {
    this.mic.set(Math.floor(at / FRAME_MS), rms);
  }

  /**
   * How much the microphone over [from, to] (clock times) looks like the reply's own echo: the best Pearson correlation
   * of the two envelopes at the lag that lines the utterance's end up with the end of the playback before it (an echo
   * stops when the delayed playback does), within the path's spread. Scale does not matter (once the far end stops the
   * canceller lets the tail through far louder than the coupling learned during the reply); shape does.
   *
   * Why the end, not the learned delay: an audio stack under load queues more capture after the path was learned (a
   * room run's tail came 1.47 s after its playback while the path said 0.93 s), so the tail can arrive at any lag up
   * to `echoMaxDelayMs + echoDecayMs`; but searching every lag lets a short burst ("yes") match some word of the
   * reply by chance (docs/echo.md, "The echo of the reply's end"). The end alignment leaves one lag per utterance, a
   * user who speaks over the tail moves the end away from it. The learned delay only says whether a path is known at all: in the room
   * rig its estimate jumped between 0.3 and 2.4 s within one reply.
   * No `r` (and `why`) when no path is known, no playback precedes the utterance's end, the utterance is under 8
   * frames, the delayed playback was audible in under half of its frames, or the envelopes are flat.
   */
  likeness(from: number, to: number): EchoLikeness {
    if (!this.current) return { r: null, why: 'no-path' };
    const k0 = Math.floor(from / FRAME_MS);
    const k1 = Math.floor(to / FRAME_MS);
    // As long after the reply as an utterance is suspected of being its echo (the duplex engine's window).
    const maxLag = Math.round((T.echoMaxDelayMs + T.echoDecayMs) / FRAME_MS);
    const spread = Math.max(SPREAD, Math.round(this.levelGapMs / FRAME_MS));
    let lastPlayed = -1;
    for (let k = k1; k >= k1 - maxLag - spread && lastPlayed < 0; k--) if (this.played(k) > T.playbackAudibleRms) lastPlayed = k;
    if (lastPlayed < 0) return { r: null, why: 'no-playback' };
    const endLag = k1 - lastPlayed;
    const lowest = Math.max(0, endLag - spread);
    // From the end of the playback on, not from the onset: once the far end stops, the whole tail reaches the
    // microphone, also the part the hold kept from opening the utterance; a word of the user's after a quiet while
    // does not follow the reply over that while.
    const start = Math.min(k0, lastPlayed + 1);
    let best: number | null = null;
    let scan: EchoLikeness['scan'];
    let why: EchoLikeness['why'] = 'inaudible';
    const highest = Math.min(endLag + spread, maxLag + spread);
    for (let lag = 0; lag <= maxLag + spread; lag++) {
      let audible = 0;
      for (let k = k0; k <= k1; k++) if (this.played(k - lag) > T.playbackAudibleRms) audible++;
      if (audible * 2 < k1 - k0 + 1) continue;
      const aligned = lag >= lowest && lag <= highest;
      if (aligned) why = 'flat';
      const r = this.fit(start, k1, lag, 8)?.correlation;
      if (r === undefined) continue;
      if (!scan || r > scan.r) scan = { r, lagMs: lag * FRAME_MS };
      if (aligned && (best === null || r > best)) best = r;
    }
    const endLagMs = endLag * FRAME_MS;
    const traced = scan ? { scan } : {};
    if (best === null) return { r: null, endLagMs, why: k1 - k0 + 1 < 8 ? 'short' : why, ...traced };
    return { r: best, endLagMs, ...traced };
  }

  /**
   * The microphone over frames [k0, k1] against the playback `lag` frames earlier: Pearson's r (not the raw product:
   * both envelopes are positive, so any lag would look alike without centring) and the least-squares slope. Null with
   * fewer than `minFrames` recorded frames or a flat envelope.
   */
  private fit(k0: number, k1: number, lag: number, minFrames: number): { correlation: number; coupling: number } | null {
    let n = 0;
    let sm = 0;
    let sp = 0;
    let mp = 0;
    let mm = 0;
    let pp = 0;
    for (let k = k0; k <= k1; k++) {
      const m = this.mic.get(k);
      if (m === null) continue;
      const p = this.played(k - lag);
      n++;
      sm += m;
      sp += p;
      mp += m * p;
      mm += m * m;
      pp += p * p;
    }
    const cov = mp - (sm * sp) / n;
    const varP = pp - (sp * sp) / n;
    const varM = mm - (sm * sm) / n;
    if (n < minFrames || varP <= 0 || varM <= 0) return null;
    return { correlation: cov / Math.sqrt(varP * varM), coupling: Math.max(0, cov / varP) };
  }

  /** Playback at frame k, 0 where none was reported (silence, or before the reply). */
  private played(k: number): number {
    return this.playback.get(k) ?? 0;
  }

  /**
   * How loud the echo should be at the microphone at clock time `at`; 0 when no path is known yet. The playback is
   * looked up from the current delay back to the longest delay estimated lately: in the room rig the estimate jumped
   * within one reply (1.9 s, then 0.4 s) while the echo still came late, and at the short delay alone the gate looked
   * into a gap of the reply and sat at its floor while the echo barged in (docs/echo.md, "The barge gate").
   */
  expected(at: number): number {
    const e = this.current;
    if (!e) return 0;
    const k = Math.floor(at / FRAME_MS);
    const spread = Math.max(SPREAD, Math.round(this.levelGapMs / FRAME_MS));
    const nearest = Math.round(e.delayMs / FRAME_MS);
    const farthest = Math.max(nearest, Math.round(this.longest / FRAME_MS));
    let max = 0;
    for (let i = k - farthest - spread; i <= k - nearest + spread; i++) max = Math.max(max, this.played(i));
    return e.coupling * max;
  }

  private reestimate(): void {
    const end = this.newestMic;
    const maxLag = Math.round(T.echoMaxDelayMs / FRAME_MS);
    let audible = 0;
    for (let k = end - WINDOW - maxLag; k <= end; k++) if (this.played(k) > T.playbackAudibleRms) audible++;
    // Too little of the reply in view to say anything new: keep what was learned (the path outlives one reply).
    if (audible < WINDOW / 4) return;
    let best: EchoEstimate | null = null;
    for (let lag = 0; lag <= maxLag; lag++) {
      const fit = this.fit(end - WINDOW + 1, end, lag, WINDOW / 2);
      if (fit && (!best || fit.correlation > best.correlation))
        best = { delayMs: lag * FRAME_MS, coupling: fit.coupling, correlation: fit.correlation };
    }
    this.longest = Math.max(0, this.longest - (EVERY * FRAME_MS) / 8);
    if (best && this.inDoubleTalk(end) && best.coupling > this.couplingBeforeNearEnd * DOUBLE_TALK_MAX_RISE) best = null;
    if (best && best.correlation >= T.echoMinCorrelation) {
      this.current = best;
      this.longest = Math.max(this.longest, best.delayMs);
    }
    if (this.fedFrames >= maxLag + WINDOW / 3) this.looked = true;
  }
}

/** An estimate as trace fields (rounded), or none. */
export function echoFields(e: EchoEstimate | null): { echoDelayMs?: number; echoCoupling?: number; echoCorrelation?: number } {
  if (!e) return {};
  return {
    echoDelayMs: e.delayMs,
    echoCoupling: Math.round(e.coupling * 1e4) / 1e4,
    echoCorrelation: Math.round(e.correlation * 100) / 100,
  };
}

/** A likeness as endpoint trace fields (rounded), or none when the utterance was not suspected of being an echo. */
export function likenessFields(
  l: EchoLikeness | null,
): Pick<TurnStageFields['endpoint'], 'echoLikeness' | 'echoEndLagMs' | 'echoUnjudged' | 'echoScanR' | 'echoScanLagMs'> {
  if (!l) return {};
  return {
    ...(l.r !== null ? { echoLikeness: Math.round(l.r * 100) / 100 } : {}),
    ...(l.endLagMs !== undefined ? { echoEndLagMs: l.endLagMs } : {}),
    ...(l.why ? { echoUnjudged: l.why } : {}),
    ...(l.scan ? { echoScanR: Math.round(l.scan.r * 100) / 100, echoScanLagMs: l.scan.lagMs } : {}),
  };
}
