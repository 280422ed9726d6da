import { chromium, type BrowserContext, type Page, type Worker } from 'playwright-core';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The test build (`npm run build:test`): what the e2e tests, the room tests and the benches load by default. */
export const EXTENSION_DIR = resolve('.output/test/chrome-mv3');
/** The release build (`npm run build`): what the README tells users to load. */
export const RELEASE_EXTENSION_DIR = resolve('.output/chrome-mv3');
export const ARTIFACTS_DIR = resolve('tests/artifacts');
const CHROMIUM = process.env.SIDETALK_CHROMIUM ?? '/usr/bin/chromium';

export interface LaunchOptions {
  /** WAV file fed as the microphone. */
  micWav?: string;
  /** Y4M file fed as the camera; Chromium's moving test pattern when absent. */
  cameraY4m?: string;
  /** false to leave media permission at 'prompt' (exercises the grant flow). */
  autoGrantMedia?: boolean;
  /** A build to load: a fixture build (tests/e2e/fixture-build.ts), the release; the test build by default. */
  extensionDir?: string;
  /**
   * 'done' (default): the profile has finished the first-run welcome, so the panel opens on the conversation.
   * 'fresh': a new user's profile, which opens on the welcome (tests/e2e/onboarding.e2e.ts).
   */
  onboarding?: 'done' | 'fresh';
  /** A profile folder to reuse (a browser restart: tests/e2e/privacy.e2e.ts); kept on close. A fresh one otherwise. */
  profileDir?: string;
  /** Lets the test click the toolbar button over CDP (`clickToolbarButton`), which grants activeTab like a user's click. */
  toolbarClicks?: boolean;
  /**
   * Real audio devices from this PulseAudio server (the acoustic loop of tests/room/rig.ts) instead of the fake ones:
   * no fake-device flags, and Playwright's headless `--mute-audio` dropped, or every page would play silence.
   */
  pulseServer?: string;
}

export interface ExtensionSession {
  context: BrowserContext;
  worker: Worker;
  extensionId: string;
  /** Console errors and uncaught exceptions from every extension page, for the "no console errors" checks. */
  errors: string[];
  openPage(path: string): Promise<Page>;
  close(): Promise<void>;
}

/** Launches headless Debian Chromium with the built extension, SwiftShader WebGPU and fake media devices. */
export async function launchExtension(options: LaunchOptions = {}): Promise<ExtensionSession> {
  const extensionDir = options.extensionDir ?? EXTENSION_DIR;
  if (!existsSync(join(extensionDir, 'manifest.json'))) {
    const script = extensionDir === RELEASE_EXTENSION_DIR ? 'npm run build' : 'npm run build:test';
    throw new Error(`No built extension at ${extensionDir}: run "${script}" first.`);
  }
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y --no-install-recommends chromium`);
  }
  const profile = options.profileDir ?? mkdtempSync(join(tmpdir(), 'sidetalk-e2e-'));
  const args = [
    `--disable-extensions-except=${extensionDir}`,
    `--load-extension=${extensionDir}`,
    '--enable-unsafe-webgpu',
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ];
  // Extra flags for a whole run, e.g. Dawn's OpenGL ES backend in compatibility mode, the adapter Chromium gives pages
  // on the GPU machine (docs/gpu-browser.md): SIDETALK_E2E_CHROMIUM_FLAGS='--use-angle=swiftshader
  // --use-webgpu-adapter=opengles --force-webgpu-compat' runs the same tests on it over SwiftShader's GL.
  args.push(...(process.env.SIDETALK_E2E_CHROMIUM_FLAGS ?? '').split(/\s+/).filter(Boolean));
  if (!options.pulseServer) args.push('--use-fake-device-for-media-stream');
  if (options.autoGrantMedia !== false) args.push('--use-fake-ui-for-media-stream');
  if (options.toolbarClicks) args.push('--enable-unsafe-extension-debugging');
  if (options.micWav) args.push(`--use-file-for-fake-audio-capture=${options.micWav}`);
  if (options.cameraY4m) args.push(`--use-file-for-fake-video-capture=${options.cameraY4m}`);

  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args,
    ...(options.pulseServer
      ? { ignoreDefaultArgs: ['--mute-audio'], env: { ...process.env, PULSE_SERVER: options.pulseServer } }
      : {}),
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  const extensionId = new URL(worker.url()).host;
  const errors: string[] = [];
  worker.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`[service worker] ${msg.text()}`);
  });
  if (options.onboarding !== 'fresh') await markOnboardingDone(worker);
  const watch = (page: Page) => {
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(`[${page.url()}] ${msg.text()}`);
    });
    page.on('pageerror', (err) => errors.push(`[${page.url()}] uncaught: ${err.message}`));
  };
  return {
    context,
    worker,
    extensionId,
    errors,
    async openPage(path: string) {
      const page = await context.newPage();
      watch(page);
      await page.goto(`chrome-extension://${extensionId}/${path.replace(/^\//, '')}`);
      return page;
    },
    async close() {
      await context.close();
      if (!options.profileDir) rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Stores `onboardingDone` before any page opens. The install's settings migration writes the settings first (it
 * reads, then writes): waiting for its write keeps it from overwriting ours.
 */
async function markOnboardingDone(worker: Worker): Promise<void> {
  const stored = () => worker.evaluate(() => chrome.storage.local.get('settings'));
  await poll(stored, (s) => s.settings !== undefined, 10_000, 50).catch(() => undefined);
  await worker.evaluate(async () => {
    const { settings } = await chrome.storage.local.get('settings');
    await chrome.storage.local.set({ settings: { ...(settings ?? {}), onboardingDone: true } });
  });
}

/**
 * The user clicks Sidetalk's toolbar button while `tab` is the active tab: Chrome grants activeTab for it (the page
 * extractor may read it) and opens the popup. Needs `toolbarClicks` at launch (CDP Extensions.triggerAction).
 */
export async function clickToolbarButton(session: ExtensionSession, tab: Page): Promise<void> {
  await tab.bringToFront();
  const browser = await session.context.browser()!.newBrowserCDPSession();
  try {
    // The action runs on a tab target (the page's container), found by the page's address.
    const { targetInfos } = (await browser.send('Target.getTargets', {
      filter: [{ type: 'tab', exclude: false }],
    } as never)) as { targetInfos: { targetId: string; type: string; url: string }[] };
    const tabs = targetInfos.filter((t) => t.type === 'tab' && t.url === tab.url());
    if (tabs.length !== 1) throw new Error(`expected one tab at ${tab.url()}, found ${tabs.length}`);
    await browser.send('Extensions.triggerAction' as never, { id: session.extensionId, targetId: tabs[0]!.targetId } as never);
  } finally {
    await browser.detach();
  }
}

/** Sends a raw runtime message from an extension page (the offscreen document is reachable only this way). */
export function sendFromPage<T = unknown>(page: Page, message: unknown): Promise<T> {
  return page.evaluate((m) => chrome.runtime.sendMessage(m), message) as Promise<T>;
}

export async function poll<T>(fn: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 15_000, stepMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T = await fn();
  while (!ok(last)) {
    if (Date.now() > end) throw new Error(`Timed out after ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, stepMs));
    last = await fn();
  }
  return last;
}

export function contextTypes(worker: Worker): Promise<string[]> {
  return worker.evaluate(async () => (await chrome.runtime.getContexts({})).map((c) => c.contextType as string));
}

/** Saves a screenshot as a test artifact and returns how many distinct colours it has (a blank page has ~1). */
export async function screenshotColours(page: Page, name: string): Promise<number> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const png = await page.screenshot({ fullPage: true });
  writeFileSync(join(ARTIFACTS_DIR, `${name}.png`), png);
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const canvas = new OffscreenCanvas(img.width, img.height);
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, img.width, img.height).data;
    const colours = new Set<number>();
    for (let i = 0; i < data.length; i += 16) colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
    return colours.size;
  }, png.toString('base64'));
}

/** Waits until the offscreen document exists and answers (its context appears before its listener does). */
export async function waitForOffscreen(session: ExtensionSession, page: Page): Promise<void> {
  await poll(
    () => contextTypes(session.worker),
    (t) => t.includes('OFFSCREEN_DOCUMENT'),
    20_000,
  );
  await poll(
    () => sendFromPage<{ ok?: boolean } | undefined>(page, request('offscreen/ping', 'offscreen')).catch(() => undefined),
    (r) => r?.ok === true,
    20_000,
  );
}

/** A raw protocol request, as a UI page would send it. */
export function request(type: string, target: string, payload: unknown = {}) {
  return { kind: 'request', type, target, payload };
}

/** Points the extension at the fixture hub and downloads `bundleIds`, waiting until every one is complete. */
export async function downloadModels(page: Page, hubUrl: string, bundleIds: string[], timeoutMs = 60_000): Promise<void> {
  await sendFromPage(page, request('settings/set', 'background', { patch: { mirrorBaseUrl: hubUrl } }));
  await sendFromPage(page, request('weights/download', 'background', { bundleIds }));
  type State = { ok: boolean; data?: { bundles: { id: string; status: string }[] } | null };
  await poll(
    () => sendFromPage<State>(page, request('weights/state', 'background')),
    (r) => r.ok && bundleIds.every((id) => r.data?.bundles.find((b) => b.id === id)?.status === 'complete'),
    timeoutMs,
    250,
  );
}

export interface EngineMark {
  name: string;
  at: number;
  /** `at` on the wall clock (Date.now()'s scale). */
  wallAt: number;
  turnId: string;
  fields?: Record<string, number | boolean>;
}

/** The turns a timeline has seen so far: a later turn is one whose id is not in this set (ids are opaque strings). */
export function turnsIn(marks: readonly { turnId: string }[]): Set<string> {
  return new Set(marks.map((m) => m.turnId));
}

/** The engine's timeline so far (names and clock times of its marks). */
export async function engineMarks(page: Page): Promise<EngineMark[]> {
  const r = await sendFromPage<{ ok: boolean; data?: EngineMark[] } | undefined>(
    page,
    request('conversation/marks', 'offscreen'),
  );
  // No answer at all: the document was closed, crashed or replaced (the background replaces one that stops
  // answering) while the request was in flight.
  if (!r) throw new Error('the offscreen document did not answer conversation/marks');
  return r.ok ? (r.data ?? []) : [];
}

/** Points the tool look-ups (weather, Wikipedia) at a local fake API; set it before the first tool call. */
export async function pointToolsAt(session: ExtensionSession, baseUrl: string): Promise<void> {
  await session.worker.evaluate(
    (base) =>
      chrome.storage.local.set({
        devToolEndpoints: {
          geocodingUrl: `${base}/geo/v1/search`,
          forecastUrl: `${base}/forecast/v1/forecast`,
          wikipediaBaseUrl: `${base}/wiki/{lang}`,
        },
      }),
    baseUrl,
  );
}

/** Waits until the offscreen document's live value of a tunable is `value` (the debug panel must be on). */
export async function waitForLiveTunable(page: Page, section: string, key: string, value: number): Promise<void> {
  await poll(
    () =>
      sendFromPage<{ ok: boolean; data?: Record<string, Record<string, number>> }>(
        page,
        request('debug/tunables-live', 'offscreen', { context: 'offscreen' }),
      ),
    (r) => r.ok && r.data?.[section]?.[key] === value,
  );
}
