/** The room sweep's numbers (run.ts): per room and in total, as JSON and a markdown table. */
import type { Acoustics } from '../../tests/room/rig';
import type { ReplyResult } from '../../tests/room/results';

export interface RoomRow {
  levelDb: number;
  acoustics: Omit<Acoustics, 'gainDb'>;
  /** Speakers → microphone delay of this room as measured (the sox delay plus the pipes). */
  roomDelayMs: number;
  /** The echo's active-speech level at the microphone relative to the user's, as measured. */
  echoLevelDb: number;
  silent: ReplyResult;
  over: ReplyResult;
  /** A reply with a backchannel over it (absent in results from before 2026-12-04q). */
  backchannel?: ReplyResult;
}

const dB = (x: number) => 20 * Math.log10(x);

/** Every reply during which the user was silent: the silent one, the talked-over one before the voice, the follow-up. */
function silentReplies(r: RoomRow): ReplyResult[] {
  return [r.silent, r.over, ...(r.over.followUp ? [r.over.followUp] : []), ...(r.backchannel ? [r.backchannel] : [])];
}

export function erleDb(r: ReplyResult): number {
  return dB(r.echoRms / r.residualRms);
}

/** The q-quantile of `xs` (the sample at ⌊q·n⌋ of the sorted values); null for none. */
export function quantile(xs: number[], q: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/** How near the echo came to a hold by a run both tracks heard, over the silent replies that traced it. */
function jointOnEcho(silent: ReplyResult[]) {
  const traced = silent.filter((r) => r.jointFrames !== undefined);
  return {
    traced: traced.length,
    frames: traced.reduce((n, r) => n + (r.jointFrames ?? 0), 0),
    replies: traced.filter((r) => (r.jointFrames ?? 0) > 0).length,
    longestRun: Math.max(0, ...traced.map((r) => r.jointLongestRun ?? 0)),
  };
}

/**
 * The reply had ended before the user spoke: its turn was over before the voice, or (recorded since 2026-12-06i) its
 * speakers went quiet before the voice with no barge-in, so there was nothing left to interrupt.
 */
function endedFirst(i: ReplyResult['interrupted'] | undefined): boolean {
  if (!i) return false;
  return i.preempted || (!i.detected && i.speakersSilentAfterVoiceMs !== undefined && i.speakersSilentAfterVoiceMs <= 0);
}

export function summarise(rows: RoomRow[]) {
  const silent = rows.flatMap(silentReplies);
  const over = rows.map((r) => r.over);
  // ≤ 0: the speakers were already silent when the voice began (a gap between sentences): no stop to time.
  const stops = over.flatMap((o) =>
    o.interrupted?.stopLatencyMs !== undefined && o.interrupted.stopLatencyMs > 0 ? [o.interrupted.stopLatencyMs] : [],
  );
  const lowered = over.flatMap((o) =>
    o.interrupted?.loweredLatencyMs !== undefined && o.interrupted.loweredLatencyMs > 0 ? [o.interrupted.loweredLatencyMs] : [],
  );
  const spread = (pick: (i: NonNullable<ReplyResult['interrupted']>) => number | undefined) => {
    const xs = over.flatMap((o) => (o.interrupted && pick(o.interrupted) !== undefined ? [pick(o.interrupted)!] : []));
    return { p50: quantile(xs, 0.5), p90: quantile(xs, 0.9), n: xs.length };
  };
  const engine = over.flatMap((o) => (o.interrupted?.engineLatencyMs !== undefined ? [o.interrupted.engineLatencyMs] : []));
  const erle = rows.map((r) => erleDb(r.silent)).filter(Number.isFinite);
  const backs = rows.flatMap((r) =>
    r.backchannel?.backchannel && !r.backchannel.backchannel.preempted ? [r.backchannel.backchannel] : [],
  );
  const heldMs = backs.flatMap((b) => (b.heldMs === undefined ? [] : [b.heldMs]));
  return {
    replies: silent.length,
    falseBargeIns: silent.reduce((n, r) => n + r.falseBargeIns, 0),
    falseBargeInsByWords: silent.reduce((n, r) => n + (r.falseBargeInsByWords ?? 0), 0),
    phantomOnsets: silent.reduce((n, r) => n + r.phantomOnsets, 0),
    /** Absent (null) in results from before it was counted. */
    phantomTurns: silent.some((r) => r.phantomTurns === undefined) ? null : silent.reduce((n, r) => n + (r.phantomTurns ?? 0), 0),
    falseDucks: silent.reduce((n, r) => n + (r.falseDucks ?? 0), 0),
    falseDucksByBoth: silent.reduce((n, r) => n + (r.falseDucksByBoth ?? 0), 0),
    repliesWithFalseBargeIn: silent.filter((r) => r.falseBargeIns > 0).length,
    /** Silent replies whose echo passed both tracks' gates at once: frames, replies with any, the longest run (traced ones). */
    jointOnEcho: jointOnEcho(silent),
    interruptions: over.length,
    /**
     * Talked-over replies that had already ended when the user spoke (a false barge-in, an onset from the echo, …), or
     * whose speakers had gone quiet by then with nothing holding them (the reply's end came first).
     */
    preempted: over.filter((o) => endedFirst(o.interrupted)).length,
    /** Talked-over replies whose barge-in run began before the voice did: their own echo had started it. */
    startedByEcho: {
      n: over.filter((o) => o.interrupted?.voiceToEngineOnsetMs !== undefined).length,
      early: over.filter((o) => (o.interrupted?.voiceToEngineOnsetMs ?? 0) < 0).length,
    },
    missedBargeIns: over.filter((o) => !o.interrupted?.detected && !endedFirst(o.interrupted)).length,
    /** Interruptions cut by what the (fixture) ASR heard in a short burst rather than by their length. */
    cutByWords: over.filter((o) => o.interrupted?.detected && o.interrupted.byWords).length,
    /** Where the time to lowered went (wall clock; absent in older results). */
    voiceToEngineOnsetMs: spread((i) => i.voiceToEngineOnsetMs),
    voiceToDuckMs: spread((i) => i.voiceToDuckMs),
    duckToLoweredMs: spread((i) => i.duckToLoweredMs),
    duckFrameLagMs: spread((i) => i.duckFrameLagMs),
    /** Interruptions the unprocessed track's own gate lowered first (where both tracks gate a barge-in). */
    duckedByUnprocessed: over.filter((o) => o.interrupted?.duckTrack === 'unprocessed').length,
    /** Interruptions held by a run both tracks' gates heard, before either gate's own five frames (absent before 05h). */
    duckedByBoth: over.filter((o) => o.interrupted?.duckTrack === 'both').length,
    onsetToLoweredMs: { p50: quantile(lowered, 0.5), p90: quantile(lowered, 0.9), n: lowered.length },
    onsetToSilentMs: { p50: quantile(stops, 0.5), p90: quantile(stops, 0.9), n: stops.length },
    engineOnsetToDecisionMs: { p50: quantile(engine, 0.5), p90: quantile(engine, 0.9), n: engine.length },
    erleDb: { min: quantile(erle, 0), p50: quantile(erle, 0.5), max: quantile(erle, 1) },
    /** Backchannels over a reply (measured: the reply still played when the user spoke). */
    backchannels: {
      n: backs.length,
      stopped: backs.filter((b) => b.stopped).length,
      stoppedByWords: backs.filter((b) => b.stoppedByWords).length,
      turns: backs.reduce((n, b) => n + b.turns, 0),
      held: backs.filter((b) => b.held).length,
      /** The reply played to its end after it (absent before 2026-12-06p). */
      playedOn: backs.filter((b) => b.playedOn).length,
      /** Decided on the phrase's own words (`--heard-as-said`), not the fixture recogniser's letters. */
      heardAsSaid: backs.filter((b) => b.heardAs !== undefined).length,
      heldMs: { p50: quantile(heldMs, 0.5), p90: quantile(heldMs, 0.9), n: heldMs.length },
    },
    /** Loudest residual frame over every probe window, against the engine's bargeMinRms. */
    residualPeakRms: Math.max(...silent.map((r) => r.residualPeakRms).filter(Number.isFinite)),
  };
}

const f = (x: number | null | undefined, d = 0) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d));

/** A missed interruption: its longest onset run, and (when traced) voiced frames under the gate / loud unvoiced ones. */
function missedWhy(i: NonNullable<ReplyResult['interrupted']>): string {
  if (i.voicedUnderGateFrames === undefined) return String(i.longestRun);
  const raw =
    i.rawLongestRun === undefined ? '' : `; unprocessed: ${i.rawLongestRun}, ${i.rawVoicedUnderGateFrames ?? 0} voiced under`;
  return `${i.longestRun}; ${i.voicedUnderGateFrames} voiced under the gate, ${i.loudUnvoicedFrames ?? 0} loud unvoiced${raw}`;
}

/** A stop time for the table: none (missed, or an older result), or ≤ 0 when the voice began in a gap of the reply. */
const latency = (ms: number | undefined) => (ms === undefined ? '–' : ms <= 0 ? 'gap at onset' : `${f(ms)} ms`);

/** What a backchannel did to the reply, for the table. */
function backchannelCell(b: ReplyResult['backchannel']): string {
  if (!b) return '–';
  if (b.preempted) return `${b.text}: reply had ended`;
  const held = b.held ? `held${b.heldMs === undefined ? '' : ` ${b.heldMs} ms`}` : 'not held';
  const stopped = `stopped it${b.stoppedByWords === undefined ? '' : b.stoppedByWords ? ' (by words)' : ' (by length)'}`;
  const heard = b.heardAs === undefined ? '' : ` heard as "${b.heardAs}"`;
  return `${b.text}${heard}: ${b.stopped ? stopped : `went on (${held})`}${b.turns ? `, ${b.turns} turn(s)` : ''}`;
}

export function markdown(s: ReturnType<typeof summarise>, rows: RoomRow[], meta: Record<string, unknown>): string {
  const lines = [
    `# Talking over the reply through a room (${String(meta.date)})`,
    '',
    `Command: \`${String(meta.command)}\` · machine: ${String(meta.machine)} · ${String(meta.wallSeconds)} s`,
    `Rig: ${String(meta.rig)}`,
    ...(meta.incomplete ? [`**Incomplete:** ${String(meta.incomplete)}`] : []),
    ...(meta.note ? [`**Note:** ${String(meta.note)}`] : []),
    '',
    '| measure | value |',
    '|---|---|',
    `| replies with the user silent | ${s.replies} |`,
    `| false barge-ins (replies with one) | ${s.falseBargeIns} (${s.repliesWithFalseBargeIn}) |`,
    `| of which cut by the fixture ASR's words (a real ASR could hear the reply's own words and let it go) | ${s.falseBargeInsByWords} |`,
    `| phantom user turns (an utterance from the echo that was not discarded) | ${s.phantomTurns ?? 'not counted'} |`,
    `| phantom user onsets (speech-start while silent) | ${s.phantomOnsets} |`,
    `| reply ducked while the user was silent (of which by a run both tracks heard) | ${s.falseDucks} (${s.falseDucksByBoth}) |`,
    `| silent replies whose echo both tracks' gates passed at once: replies / frames / longest run (of the traced) | ${s.jointOnEcho.replies} / ${s.jointOnEcho.frames} / ${s.jointOnEcho.longestRun} (${s.jointOnEcho.traced}) |`,
    `| interruptions / missed / reply already ended when the user spoke | ${s.interruptions} / ${s.missedBargeIns} / ${s.preempted} |`,
    `| of the stopped: cut by the words the recogniser heard in a short burst (the fixture's letters, or the phrase's own with --heard-as-said), not by their length | ${s.cutByWords} |`,
    `| voice onset → reply lowered ≥ 10 dB (duck or cut), p50 / p90 (n) | ${f(s.onsetToLoweredMs.p50)} / ${f(s.onsetToLoweredMs.p90)} ms (${s.onsetToLoweredMs.n}) |`,
    `| talked-over replies whose barge-in run began before the voice (their echo started it) | ${s.startedByEcho.n ? `${s.startedByEcho.early} of ${s.startedByEcho.n}` : '–'} |`,
    `| of which: voice → the engine's onset / → duck decided / duck → speakers lowered, p50 (n) | ${f(s.voiceToEngineOnsetMs?.p50)} (${s.voiceToEngineOnsetMs?.n ?? 0}) / ${f(s.voiceToDuckMs?.p50)} (${s.voiceToDuckMs?.n ?? 0}) / ${f(s.duckToLoweredMs?.p50)} (${s.duckToLoweredMs?.n ?? 0}) ms |`,
    ...(s.duckFrameLagMs.n
      ? [
          `| the frame that held the reply: capture → engine, p50 / p90 (n) | ${f(s.duckFrameLagMs.p50)} / ${f(s.duckFrameLagMs.p90)} ms (${s.duckFrameLagMs.n}) |`,
        ]
      : []),
    ...(s.duckedByBoth ? [`| interruptions held by a run both tracks heard | ${s.duckedByBoth} |`] : []),
    ...(s.duckedByUnprocessed
      ? [`| interruptions lowered first by the unprocessed track's gate | ${s.duckedByUnprocessed} |`]
      : []),
    `| voice onset → speakers silent, p50 / p90 (n) | ${f(s.onsetToSilentMs.p50)} / ${f(s.onsetToSilentMs.p90)} ms (${s.onsetToSilentMs.n}) |`,
    `| engine onset → barge decision, p50 / p90 | ${f(s.engineOnsetToDecisionMs.p50)} / ${f(s.engineOnsetToDecisionMs.p90)} ms |`,
    ...(s.backchannels.n
      ? [
          `| backchannels over the reply: stopped it (of which by the recogniser's words) / became turns / held it / played on to its end (n) | ${s.backchannels.stopped} (${s.backchannels.stoppedByWords}) / ${s.backchannels.turns} / ${s.backchannels.held} / ${s.backchannels.playedOn} (${s.backchannels.n}) |`,
          `| of which heard as their own words (the scripted recogniser, --heard-as-said), not the fixture recogniser's letters | ${s.backchannels.heardAsSaid} |`,
          `| a held reply's pause for a backchannel, p50 / p90 (n) | ${f(s.backchannels.heldMs.p50)} / ${f(s.backchannels.heldMs.p90)} ms (${s.backchannels.heldMs.n}) |`,
        ]
      : []),
    `| ERLE of Chrome's canceller, min / p50 / max | ${f(s.erleDb.min, 1)} / ${f(s.erleDb.p50, 1)} / ${f(s.erleDb.max, 1)} dB |`,
    `| loudest residual frame (RMS) | ${s.residualPeakRms.toExponential(1)} |`,
    '',
    '| level (asked / at mic) | reverb | overdrive | delay (first room) | echo RMS | residual RMS (peak frame) | ERLE | false barge-ins | phantom onsets | interruption (missed: longest onset run, frames; voiced frames under the gate, loud unvoiced frames) | onset → lowered | onset → silent | backchannel |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const all = silentReplies(r);
    const i = r.over.interrupted;
    lines.push(
      `| ${r.levelDb} / ${f(r.echoLevelDb, 1)} dB | ${r.acoustics.reverb || 'none'} | ${r.acoustics.overdrive || 'none'} | ` +
        `${f(r.roomDelayMs)} ms | ${r.silent.echoRms.toExponential(1)} | ${r.silent.residualRms.toExponential(1)} (${r.silent.residualPeakRms.toExponential(1)}) | ` +
        `${f(erleDb(r.silent), 1)} dB | ${all.reduce((n, x) => n + x.falseBargeIns, 0)} | ${all.reduce((n, x) => n + x.phantomOnsets, 0)} | ` +
        `${endedFirst(i) ? 'reply had ended' : i?.detected ? 'stopped' : 'missed'}${i?.detected || endedFirst(i) || i?.longestRun === undefined ? '' : ` (${missedWhy(i)})`} | ${latency(i?.loweredLatencyMs)} | ${latency(i?.stopLatencyMs)} | ${backchannelCell(r.backchannel?.backchannel)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
