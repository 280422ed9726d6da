/**
 * The room sweep's frame log (docs/benchmarks.md, "The gates frame by frame"): after each reply, the frames both barge
 * gates judged during it (core/engine/gate-frames.ts), with capture times on the wall clock so they line up with
 * where the rig found the user's voice. Written next to the sweep's JSON as `<out>-frames.json`.
 */
import type { Page } from 'playwright-core';
import { request, sendFromPage } from '../../tests/e2e/harness';

export interface GateFrames {
  columns: string[];
  /** `at` is on the wall clock (ms since the epoch); the other values rounded to four significant digits. */
  rows: number[][];
}

const round = (v: number) => (v === 0 || !Number.isFinite(v) ? v : Number(v.toPrecision(4)));

/** The frames kept since the last call (none unless `engine.traceGateFrames` is on). */
export async function takeGateFrames(panel: Page): Promise<GateFrames> {
  const r = await sendFromPage<{ ok: boolean; data?: { columns: string[]; rows: number[][]; clockToWallMs: number } }>(
    panel,
    request('debug/gate-frames', 'offscreen'),
  );
  if (!r?.ok || !r.data) throw new Error(`debug/gate-frames: ${JSON.stringify(r)}`);
  const { columns, rows, clockToWallMs } = r.data;
  const at = columns.indexOf('at');
  return { columns, rows: rows.map((row) => row.map((v, i) => (i === at ? Math.round(v + clockToWallMs) : round(v)))) };
}
