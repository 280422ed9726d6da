import { describe, expect, it } from 'vitest';
import { closeMouth, mouthOpenness, type MorphMesh } from '../../../components/avatar/mouth-morphs';
import { AvatarProbe } from '../../../components/avatar/avatar-probe';

function mesh(values: Record<string, number>): MorphMesh {
  const names = Object.keys(values);
  return {
    morphTargetDictionary: Object.fromEntries(names.map((n, i) => [n, i])),
    morphTargetInfluences: names.map((n) => values[n]!),
  };
}

describe('mouth morphs', () => {
  it('measures the rendered mouth: speech morphs only, the largest influence per morph across meshes', () => {
    const head = mesh({ viseme_aa: 0.6, jawOpen: 0.2, viseme_sil: 1, mouthSmileLeft: 0.9, eyeBlinkLeft: 1 });
    const teeth = mesh({ viseme_aa: 0.4, viseme_PP: 0.3 });
    expect(mouthOpenness([head, teeth])).toBeCloseTo(0.6 + 0.2 + 0.3, 6);
    expect(mouthOpenness([mesh({ viseme_sil: 1, mouthSmileRight: 0.5 })])).toBe(0);
    expect(mouthOpenness([{}])).toBe(0);
  });

  it('closeMouth zeroes the animation state and the drawn influences, leaving other morphs alone', () => {
    const m = mesh({ viseme_O: 0.7, jawOpen: 0.4, mouthSmileLeft: 0.5 });
    const state = (v: number) => ({
      value: v,
      applied: v,
      newvalue: v as number | null,
      base: null as number | null,
      needsUpdate: true,
    });
    const head = { mtAvatar: { viseme_O: state(0.7), jawOpen: state(0.4), mouthSmileLeft: state(0.5) }, morphs: [m] };
    closeMouth(head);
    expect(mouthOpenness([m])).toBe(0);
    expect(head.mtAvatar.viseme_O).toMatchObject({ value: 0, applied: 0, newvalue: null });
    expect(head.mtAvatar.mouthSmileLeft.value).toBe(0.5);
    expect(m.morphTargetInfluences![2]).toBe(0.5);
  });

  it('the probe keeps the newest frames and events within its capacity', () => {
    const probe = new AvatarProbe(() => ({ baseLatency: 0.01, outputLatency: 0.02 }), 3);
    for (let i = 0; i < 5; i++)
      probe.record({ at: i, frameMs: 1, mouth: 0, audible: 0, speaking: false, clockMs: -1, gain: 1, audioMs: 0 });
    probe.mark('interrupt', 7);
    const snap = probe.snapshot();
    expect(snap.frames.map((f) => f.at)).toEqual([2, 3, 4]);
    expect(snap.events).toEqual([{ name: 'interrupt', at: 7 }]);
    expect(snap.outputLatency).toBe(0.02);
    probe.clear();
    expect(probe.snapshot().frames).toEqual([]);
  });
});
