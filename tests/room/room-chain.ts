/**
 * The room as LADSPA plugins inside the PulseAudio server (issue 50, docs/benchmarks.md "The rig's delay"): the
 * speakers sink is the head of a chain of `module-ladspa-sink`s whose last master is the room sink, so every sample
 * Chromium plays reaches the microphone on the server's one clock, exactly `delayS` later. The same plugins run
 * offline through sox's `ladspa` effect (levels.ts), so the level the room is asked for is computed on the very
 * filters it runs. swh-plugins provides them (Debian package swh-plugins).
 */
import type { Acoustics } from './rig';

/** One stage: a mono plugin (one audio input, one output) with its input controls in port order. */
export interface Stage {
  /** The .so file in /usr/lib/ladspa, without the extension. */
  plugin: string;
  label: string;
  controls: number[];
}

export const LADSPA_DIR = '/usr/lib/ladspa';
// sox finds the plugins by LADSPA_PATH; the sox runs of levels.ts and the benches inherit it.
process.env.LADSPA_PATH ??= LADSPA_DIR;
/** The delay line's length: the longest speakers → microphone delay a room may ask for. */
const MAX_DELAY_S = 1;
/**
 * The reverb's two allpass sections: their delays (s). Each passes the direct sound at −g and its echoes at (1 − g²),
 * g, … times it; with g over 0.62 the direct sound stays the strongest part of the echo, as in a room (at a lower g,
 * and with swh's comb, an echo outweighed it: the room's delay then read one echo later).
 */
const ALLPASS_DELAYS_S = [0.0297, 0.0371];
/**
 * The allpasses' buffer ("max delay"), far over their delays: offline, sox runs a plugin on 8192-sample blocks, and
 * with a 50 ms buffer the section lost 5.7 dB of speech's energy there while it kept an impulse's, and the level
 * check would have been computed on a different room than the server's (its blocks are ~10 ms).
 */
const ALLPASS_BUFFER_S = 0.5;

/**
 * The stages for a room, in signal order. Reverb (0–100, as sox's reverberance) sets the allpasses' g from 0.92 down to
 * 0.62; overdrive (sox's dB) maps onto the fast overdrive's drive level 1–3; band limits and a resonance come from
 * the speaker's size.
 */
export function roomStages(a: Acoustics): Stage[] {
  const stages: Stage[] = [{ plugin: 'delay_1898', label: 'delay_n', controls: [MAX_DELAY_S, a.delayS] }];
  if (a.reverb > 0) {
    // More reverb: more of the energy in the echoes (1 − g² per section), and a shorter tail (60 dB in 0.4–2.5 s).
    const g = 0.92 - 0.3 * (Math.min(100, a.reverb) / 100);
    for (const d of ALLPASS_DELAYS_S) {
      // The plugin takes the time the echoes need to fall 60 dB: g per delay.
      const decayS = (-3 * d) / Math.log10(g);
      stages.push({ plugin: 'allpass_1895', label: 'allpass_n', controls: [ALLPASS_BUFFER_S, d, Number(decayS.toFixed(4))] });
    }
  }
  if (a.lowCutHz) stages.push({ plugin: 'butterworth_1902', label: 'butthigh_iir', controls: [a.lowCutHz, 0.755] });
  if (a.highCutHz) stages.push({ plugin: 'butterworth_1902', label: 'buttlow_iir', controls: [a.highCutHz, 0.755] });
  if (a.resonance) {
    stages.push({ plugin: 'single_para_1203', label: 'singlePara', controls: [a.resonance.db, a.resonance.hz, 1] });
  }
  if (a.overdrive > 0)
    stages.push({ plugin: 'foverdrive_1196', label: 'foverdrive', controls: [Math.min(3, 1 + a.overdrive / 10)] });
  stages.push({ plugin: 'amp_1181', label: 'amp', controls: [a.gainDb] });
  return stages;
}

/** The same room as sox effects (offline: levels.ts, the linear canceller bench); needs LADSPA_PATH=LADSPA_DIR. */
export function ladspaSoxEffects(a: Acoustics): string[] {
  return roomStages(a).flatMap((s) => ['ladspa', s.plugin, s.label, ...s.controls.map(String)]);
}

/**
 * `pactl load-module` argument lists for the chain, the head first: the head is named `head` (the speakers), the
 * last stage's master is `master` (the room); the stages between are `<head>-fx<i>`. Loaded in reverse order (each
 * stage's master must exist).
 */
export function chainModules(a: Acoustics, head: string, master: string, rate: number): string[][] {
  const stages = roomStages(a);
  return stages.map((s, i) => [
    'module-ladspa-sink',
    `sink_name=${i === 0 ? head : `${head}-fx${i}`}`,
    `sink_master=${i === stages.length - 1 ? master : `${head}-fx${i + 1}`}`,
    `plugin=${s.plugin}`,
    `label=${s.label}`,
    `control=${s.controls.join(',')}`,
    'channels=1',
    `rate=${rate}`,
  ]);
}

/** A room of the seeded grid: its acoustics without the gain, and the speaker level at the microphone (dB). */
export interface GridRoom {
  acoustics: Omit<Acoustics, 'gainDb'>;
  levelDb: number;
}

/**
 * `n` rooms drawn from a seed (issue 50): path delay 10–250 ms, reverb 0–80, overdrive 0–6 dB, the speakers −20…+3 dB
 * relative to the user, and in half the rooms each a small speaker's band (high-pass 100–400 Hz, low-pass 3–8 kHz) and
 * a box resonance (+3…+9 dB at 300 Hz–3 kHz). Not drawn: background noise and a drifting delay (the rig has neither).
 */
export function roomGrid(seed: number, n: number): GridRoom[] {
  let x = seed >>> 0 || 1;
  const rand = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const between = (lo: number, hi: number, step: number) => Math.round((lo + rand() * (hi - lo)) / step) * step;
  return Array.from({ length: n }, () => {
    const acoustics: GridRoom['acoustics'] = {
      delayS: between(0.01, 0.25, 0.001),
      reverb: between(0, 80, 10),
      overdrive: between(0, 6, 1),
    };
    const levelDb = between(-20, 3, 1);
    if (rand() < 0.5) {
      acoustics.lowCutHz = between(100, 400, 10);
      acoustics.highCutHz = between(3000, 8000, 100);
    }
    if (rand() < 0.5) acoustics.resonance = { hz: between(300, 3000, 10), db: between(3, 9, 1) };
    return { acoustics, levelDb };
  });
}
