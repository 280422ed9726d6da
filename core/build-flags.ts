/**
 * Build-time switches (docs/security.md, "Test hooks and the release build"). `wxt.config.ts` defines
 * `__SIDETALK_TEST_HOOKS__`: false for the release build (`npm run build:release`, SIDETALK_RELEASE=1), true for every
 * other build, which the e2e tests load. Code behind `TEST_HOOKS` (debug panel, fault injection, probes, the scripted
 * model stand-in, the tool endpoint override) is dropped from the release bundle as dead code. Outside a bundle
 * (unit tests, benches run by Node) nothing defines it, and the hooks are on.
 */
declare const __SIDETALK_TEST_HOOKS__: boolean | undefined;

export const TEST_HOOKS: boolean = typeof __SIDETALK_TEST_HOOKS__ === 'undefined' || __SIDETALK_TEST_HOOKS__;
