/**
 * Which build `wxt build` makes, from the environment (docs/security.md, "Test hooks and the release build"). Read by
 * wxt.config.ts only. It fails closed: the test hooks are compiled in only when `SIDETALK_BUILD=test` asks for them;
 * unset, empty or any other value is the release build, the one users install. A release build pins
 * models/manifest.json and refuses a fixture weights manifest.
 *
 * `SIDETALK_BUILD=release-fixture-weights` is the release build's code (no test hooks) pinning a fixture manifest, so
 * the e2e tests can drive the release build through a first run and a spoken turn against the local fixture hub
 * (tests/e2e/fixture-build.ts). It must name its fixture manifest and its own output folder, never `.output`, and its
 * extension name says it is not the product.
 */
export type BuildKind = 'release' | 'test' | 'release-fixture-weights';

export interface BuildPlan {
  kind: BuildKind;
  /** `__SIDETALK_TEST_HOOKS__` (core/build-flags.ts). */
  testHooks: boolean;
  /** A fixture weights manifest that replaces models/manifest.json in the bundle; null: the product's. */
  weightsManifest: string | null;
  /** WXT's outDir: the extension lands in `<outDir>/chrome-mv3`. */
  outDir: string;
  /** Added to the extension's name (empty for the product). */
  nameSuffix: string;
  /** Said on the console: an unknown SIDETALK_BUILD value that was taken as the release. */
  warning: string | null;
}

/** Where each build lands: the release is what the README tells users to load. */
export const RELEASE_OUT_DIR = '.output';
export const TEST_OUT_DIR = '.output/test';

export class BuildConfigError extends Error {}

export function planBuild(env: Readonly<Record<string, string | undefined>>): BuildPlan {
  const asked = env.SIDETALK_BUILD ?? '';
  const kind: BuildKind = asked === 'test' || asked === 'release-fixture-weights' ? asked : 'release';
  const warning =
    asked !== '' && asked !== 'release' && kind === 'release'
      ? `SIDETALK_BUILD="${asked}" is not a build kind (test, release-fixture-weights): building the release`
      : null;
  const weightsManifest = env.SIDETALK_WEIGHTS_MANIFEST ? env.SIDETALK_WEIGHTS_MANIFEST : null;
  const outOverride = env.SIDETALK_OUT_DIR ? env.SIDETALK_OUT_DIR : null;
  if (kind === 'release' && weightsManifest)
    throw new BuildConfigError(
      'A release build pins models/manifest.json and refuses a fixture weights manifest (SIDETALK_WEIGHTS_MANIFEST): ' +
        'fixture weights are for test builds (SIDETALK_BUILD=test).',
    );
  if (kind === 'release-fixture-weights') {
    if (!weightsManifest) throw new BuildConfigError('SIDETALK_BUILD=release-fixture-weights needs SIDETALK_WEIGHTS_MANIFEST.');
    const out = (outOverride ?? '').replace(/\/+$/, '');
    if (!out || out === RELEASE_OUT_DIR || out.endsWith(`/${RELEASE_OUT_DIR}`))
      throw new BuildConfigError('SIDETALK_BUILD=release-fixture-weights needs its own SIDETALK_OUT_DIR, never .output.');
  }
  return {
    kind,
    testHooks: kind === 'test',
    weightsManifest,
    outDir: outOverride ?? (kind === 'test' ? TEST_OUT_DIR : RELEASE_OUT_DIR),
    nameSuffix: kind === 'release-fixture-weights' ? ' (fixture weights: tests only)' : '',
    warning,
  };
}
