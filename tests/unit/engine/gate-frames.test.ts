/**
 * The gate frame log (core/engine/gate-frames.ts): with `traceGateFrames` on, every microphone frame during a reply
 * is kept with both gates' judgement, in the columns the room sweep reads; off, nothing is. Real Silero on espeak
 * speech, both tracks (two-tracks.ts).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decisionCode, GATE_FRAME_COLUMNS, GateFrameLog } from '../../../core/engine/gate-frames';
import { resetTunables, setTunable } from '../../../core/tunables';
import { loadTwoVads, storyRun } from '../../fixtures/audio/two-tracks';
import type { SileroVadJs } from '../../../models/vad/silero-js';

let vad: SileroVadJs;
let rawVad: SileroVadJs;
beforeAll(async () => {
  ({ vad, rawVad } = await loadTwoVads());
});
afterEach(() => resetTunables('engine'));

const col = (name: (typeof GATE_FRAME_COLUMNS)[number]) => GATE_FRAME_COLUMNS.indexOf(name);

/** The joint-hold conversation: a greeting, the story, "Stop, wait a second." over it. */
function run() {
  return storyRun(vad, { greeting: true, stopAfterMs: 4200 }, { echoDelayMs: 480, unprocessed: { echoGain: 0.3, vad: rawVad } });
}

describe('the gate frame log', () => {
  it('keeps every frame of the replies with both gates, and the frame that held the reply', async () => {
    setTunable('engine.traceGateFrames', 1);
    const r = await run();
    const rows = r.engine.gateFrames.take();
    expect(r.engine.gateFrames.take()).toHaveLength(0);
    for (const row of rows) expect(row).toHaveLength(GATE_FRAME_COLUMNS.length);
    // One row per frame: consecutive capture times 32 ms apart within a reply.
    const steps = rows.slice(1).map((row, i) => Math.round(row[col('at')]! - rows[i]![col('at')]!));
    expect(steps.filter((s) => s === 32).length).toBeGreaterThan(rows.length * 0.9);
    // The frame that held the reply is the one the engine marked: both gates took it for speech (a run both heard:
    // joint-hold.test.ts), each track over its gate.
    const held = r.marks('barge-tentative');
    expect(held).toHaveLength(1);
    const ducks = rows.filter((row) => row[col('decision')] === decisionCode('duck'));
    expect(ducks).toHaveLength(1);
    const at = rows.indexOf(ducks[0]!);
    const row = rows[at]!;
    expect(row[col('candidate')]).toBe(1);
    expect(row[col('rawCandidate')]).toBe(1);
    expect(row[col('rms')]).toBeGreaterThan(row[col('gate')]!);
    expect(row[col('rawRms')]).toBeGreaterThan(row[col('rawGate')]!);
    // A joint hold counts only while both floors are measured and hold; a gate stands at or over its floor.
    expect([row[col('floorHolds')], row[col('rawFloorHolds')]]).toEqual([1, 1]);
    expect(row[col('floor')]).toBeGreaterThan(0);
    expect(row[col('gate')]).toBeGreaterThanOrEqual(row[col('floor')]!);
    expect(row[col('rawGate')]).toBeGreaterThanOrEqual(row[col('rawFloor')]!);
    // A floor holds exactly while this reply's echo has not outgrown it.
    const measured = rows.filter((r) => r[col('floor')]! > 0 && r[col('rawFloor')]! > 0);
    expect(measured.length).toBeGreaterThan(100);
    for (const r of measured) {
      expect(r[col('floorHolds')]).toBe(r[col('outgrowth')]! <= 1 ? 1 : 0);
      expect(r[col('rawFloorHolds')]).toBe(r[col('rawOutgrowth')]! <= 1 ? 1 : 0);
    }
    expect(Math.max(...measured.map((r) => r[col('rawOutgrowth')]!))).toBeGreaterThan(0);
    // The unprocessed track carries the echo the canceller took out: its level and its expected echo are the larger.
    const story = rows.slice(at - 60, at - 5);
    const mean = (name: (typeof GATE_FRAME_COLUMNS)[number]) => story.reduce((s, row) => s + row[col(name)]!, 0) / story.length;
    expect(mean('rawRms')).toBeGreaterThan(3 * mean('rms'));
    expect(mean('rawEcho')).toBeGreaterThan(mean('echo'));
    expect(mean('playback')).toBeGreaterThan(0.01);
  });

  it('keeps nothing while off', async () => {
    const r = await run();
    expect(r.marks('barge-tentative')).toHaveLength(1);
    expect(r.engine.gateFrames.take()).toHaveLength(0);
  });

  it('drops the oldest rows past its capacity', () => {
    const log = new GateFrameLog(3);
    for (let i = 0; i < 5; i++) log.push([i]);
    expect(log.take()).toEqual([[2], [3], [4]]);
  });
});
