/**
 * The room rig's in-server room (tests/room/room-chain.ts) and the lag estimator of its clock bench
 * (tests/room/clock-lag.ts). The plugins run offline through sox's ladspa effect, as levels.ts runs them: the room
 * test's level check relies on the offline chain being the one the server runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probe, windowLags } from '../../room/clock-lag';
import { chainModules, ladspaSoxEffects, roomStages } from '../../room/room-chain';
import type { Acoustics } from '../../room/rig';

const RATE = 48_000;
const F32 = ['-t', 'raw', '-r', String(RATE), '-e', 'floating-point', '-b', '32', '-c', '1'];

/** `x` through the room's plugins, offline. */
function throughRoom(x: Float32Array, a: Acoustics): Float32Array {
  const dir = mkdtempSync(join(tmpdir(), 'room-chain-'));
  writeFileSync(join(dir, 'in.f32'), x);
  execFileSync('sox', [...F32, join(dir, 'in.f32'), ...F32, join(dir, 'out.f32'), ...ladspaSoxEffects(a)]);
  const b = readFileSync(join(dir, 'out.f32'));
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}

describe('the in-server room', () => {
  it('chains the speakers sink to the room sink through every stage', () => {
    const a: Acoustics = { delayS: 0.12, reverb: 40, overdrive: 3, gainDb: -7, lowCutHz: 200, highCutHz: 6000 };
    const modules = chainModules(a, 'speakers', 'room', RATE);
    const arg = (m: string[], key: string) => m.find((x) => x.startsWith(`${key}=`))!.slice(key.length + 1);
    expect(modules).toHaveLength(roomStages(a).length);
    expect(arg(modules[0]!, 'sink_name')).toBe('speakers');
    expect(arg(modules.at(-1)!, 'sink_master')).toBe('room');
    for (let i = 0; i + 1 < modules.length; i++) expect(arg(modules[i]!, 'sink_master')).toBe(arg(modules[i + 1]!, 'sink_name'));
    expect(arg(modules[0]!, 'control')).toBe('1,0.12');
    expect(arg(modules.at(-1)!, 'control')).toBe('-7');
  });

  it('delays by exactly the room delay and applies its gain (offline, the same plugins)', () => {
    const x = new Float32Array(RATE / 2);
    x[100] = 0.5;
    const y = throughRoom(x, { delayS: 0.04, reverb: 0, overdrive: 0, gainDb: -6 });
    let peak = 0;
    for (let i = 1; i < y.length; i++) if (Math.abs(y[i]!) > Math.abs(y[peak]!)) peak = i;
    expect(peak - 100).toBe(0.04 * RATE);
    expect(y[peak]! / 0.5).toBeCloseTo(10 ** (-6 / 20), 2);
  });

  it.each([20, 50, 100])('keeps the direct sound the strongest part of a reverberant echo (reverb %i)', (reverb) => {
    const x = new Float32Array(RATE);
    x[100] = 0.5;
    const y = throughRoom(x, { delayS: 0.05, reverb, overdrive: 0, gainDb: 0 });
    let peak = 0;
    let tail = 0;
    for (let i = 1; i < y.length; i++) if (Math.abs(y[i]!) > Math.abs(y[peak]!)) peak = i;
    for (let i = 100 + 0.06 * RATE; i < y.length; i++) tail += y[i]! * y[i]!;
    expect(peak - 100).toBe(0.05 * RATE);
    // A tail at least 30 dB under the direct sound's energy: there is a reverb.
    expect(tail).toBeGreaterThan(y[peak]! * y[peak]! * 1e-3);
  });
});

describe('the in-server room, offline as the level check runs it', () => {
  it("keeps a long signal's energy through the reverb (allpass sections are lossless)", () => {
    const noise = probe(4); // 8192-sample blocks in sox: a plugin's buffer shorter than that loses energy
    const y = throughRoom(noise, { delayS: 0.04, reverb: 50, overdrive: 0, gainDb: 0 });
    const energy = (s: Float32Array) => s.reduce((a, v) => a + v * v, 0);
    expect(Math.abs(10 * Math.log10(energy(y) / energy(noise)))).toBeLessThan(1);
  });
});

describe("the rig clock bench's lag estimator", () => {
  it('finds a fixed lag in every window, and a lag that moves where it moved', () => {
    const p = probe(8);
    const fixed = new Float32Array(p.length + RATE);
    fixed.set(p, 0.04 * RATE);
    expect(windowLags(p, fixed).map((r) => r.lagMs)).toEqual(Array(6).fill(40));
    // 40 ms for the first 3 s, then 240 ms: the pipes path's kind of move.
    const moved = new Float32Array(p.length + RATE);
    moved.set(p.subarray(0, 3 * RATE), 0.04 * RATE);
    moved.set(p.subarray(3 * RATE), 3.24 * RATE);
    const lags = windowLags(p, moved).map((r) => r.lagMs);
    expect(lags.slice(0, 2)).toEqual([40, 40]);
    expect(lags.slice(3)).toEqual([240, 240, 240]);
  });
});
