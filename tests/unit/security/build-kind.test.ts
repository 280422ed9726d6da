import { describe, expect, it } from 'vitest';
import { BuildConfigError, planBuild } from '../../../core/build-kind';

describe('which build wxt makes (fails closed)', () => {
  it('is the release, with no test hooks, unless SIDETALK_BUILD=test asks for them', () => {
    for (const value of [undefined, '', 'release', 'Test', 'TEST', 'tests', '1', 'true', ' test']) {
      const plan = planBuild(value === undefined ? {} : { SIDETALK_BUILD: value });
      expect(plan, String(value)).toMatchObject({ kind: 'release', testHooks: false, outDir: '.output', nameSuffix: '' });
    }
    expect(planBuild({ SIDETALK_BUILD: 'test' })).toMatchObject({ kind: 'test', testHooks: true, outDir: '.output/test' });
  });

  it('says when it took an unknown value as the release', () => {
    expect(planBuild({}).warning).toBeNull();
    expect(planBuild({ SIDETALK_BUILD: 'release' }).warning).toBeNull();
    expect(planBuild({ SIDETALK_BUILD: 'tset' }).warning).toMatch(/"tset" is not a build kind/);
  });

  it('a release build refuses a fixture weights manifest; a test build takes it', () => {
    for (const env of [{}, { SIDETALK_BUILD: 'release' }, { SIDETALK_BUILD: 'nonsense' }])
      expect(() => planBuild({ ...env, SIDETALK_WEIGHTS_MANIFEST: '/tmp/fixture.json' })).toThrow(BuildConfigError);
    expect(
      planBuild({ SIDETALK_BUILD: 'test', SIDETALK_WEIGHTS_MANIFEST: '/tmp/f.json', SIDETALK_OUT_DIR: '/tmp/b' }),
    ).toMatchObject({ testHooks: true, weightsManifest: '/tmp/f.json', outDir: '/tmp/b' });
    // An empty value is no manifest at all.
    expect(planBuild({ SIDETALK_WEIGHTS_MANIFEST: '' }).weightsManifest).toBeNull();
  });

  it('the release code on fixture weights needs its manifest and its own folder, and names itself', () => {
    const kind = { SIDETALK_BUILD: 'release-fixture-weights' };
    expect(() => planBuild({ ...kind, SIDETALK_OUT_DIR: '/tmp/b' })).toThrow(/needs SIDETALK_WEIGHTS_MANIFEST/);
    for (const out of [undefined, '.output', '.output/', '/work/x/.output'])
      expect(() =>
        planBuild({ ...kind, SIDETALK_WEIGHTS_MANIFEST: '/tmp/f.json', ...(out ? { SIDETALK_OUT_DIR: out } : {}) }),
      ).toThrow(/own SIDETALK_OUT_DIR/);
    expect(planBuild({ ...kind, SIDETALK_WEIGHTS_MANIFEST: '/tmp/f.json', SIDETALK_OUT_DIR: '/tmp/b' })).toMatchObject({
      kind: 'release-fixture-weights',
      testHooks: false,
      nameSuffix: ' (fixture weights: tests only)',
    });
  });
});
