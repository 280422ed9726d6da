import { describe, expect, it } from 'vitest';
import { captureBadge } from '../../../core/ux/capture-badge';
import type { OffscreenStatus } from '../../../core/protocol';

const status = (mic: { capturing: boolean; live?: number }, camera?: number): OffscreenStatus => ({
  startedAt: 1,
  crossOriginIsolated: true,
  gpu: { available: false, vendor: '', architecture: '', description: '', isFallbackAdapter: false, shaderF16: false },
  mic: { sampleRate: null, ...mic },
  ...(camera === undefined ? {} : { camera: { live: camera } }),
});

describe('the capture badge', () => {
  it('is empty with no engine or nothing live', () => {
    expect(captureBadge(null).text).toBe('');
    expect(captureBadge(status({ capturing: false, live: 0 }, 0)).text).toBe('');
    expect(captureBadge(status({ capturing: false })).text).toBe('');
  });

  it('says the microphone is on from the capture graph or from a live audio track alone', () => {
    expect(captureBadge(status({ capturing: true })).text).toBe('MIC');
    expect(captureBadge(status({ capturing: false, live: 1 })).text).toBe('MIC');
    expect(captureBadge(status({ capturing: true })).title).toMatch(/microphone is on/);
  });

  it('says the camera is on, and both', () => {
    expect(captureBadge(status({ capturing: false }, 1)).text).toBe('CAM');
    expect(captureBadge(status({ capturing: true }, 1))).toMatchObject({ text: 'ON', title: /microphone and the camera/ });
  });
});
