import type { Page } from 'playwright-core';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE, TURN_BUNDLE } from '../../models/registry';
import type { FixtureHub } from './fixture-hub';
import { downloadModels, launchExtension, type ExtensionSession, type LaunchOptions } from './harness';

/**
 * The built extension in a fresh browser, its side panel open at the panel's size, with the four bundles a spoken
 * conversation needs downloaded from the fixture hub.
 */
export async function openTalkingPanel(
  fixtures: FixtureHub,
  options: Pick<LaunchOptions, 'micWav'> = {},
): Promise<{ session: ExtensionSession; panel: Page }> {
  const session = await launchExtension({ extensionDir: fixtures.extensionDir, ...options });
  const panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 860 });
  await downloadModels(panel, fixtures.hub.url, [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TURN_BUNDLE.id, TTS_BUNDLE.id]);
  return { session, panel };
}
