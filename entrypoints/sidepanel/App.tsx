import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Avatar, type AvatarHandle } from '../../components/avatar/Avatar';
import { AudioBridge } from '../../components/conversation/audio-bridge';
import { ToolCard } from '../../components/conversation/ToolCard';
import { Transcript } from '../../components/conversation/Transcript';
import { useConversation } from '../../components/conversation/useConversation';
import { usePushToTalk } from '../../components/conversation/push-to-talk';
import { Controls } from '../../components/conversation/Controls';
import { useComposer } from '../../components/conversation/use-composer';
import { ModelsPanel } from '../../components/models/ModelsPanel';
import { ComputeSettings } from '../../components/models/ComputeSettings';
import { TunablesPanel } from '../../components/debug/TunablesPanel';
import { TurnWaterfall } from '../../components/debug/TurnWaterfall';
import { TEST_HOOKS } from '../../core/build-flags';
import { MemoryPanel } from '../../components/memory/MemoryPanel';
import { PrivacyNote } from '../../components/settings/PrivacyNote';
import { AvatarSettings } from '../../components/avatar/AvatarSettings';
import { loadUserAvatar, type StoredAvatar } from '../../components/avatar/avatar-store';
import { EngineStatus } from '../../components/ui/EngineStatus';
import { PermissionNotice } from '../../components/ui/PermissionNotice';
import { StatusLine } from '../../components/ui/StatusLine';
import { openPermissionsPage, request, useAppStatus, usePermission, useSettings } from '../../components/ui/runtime';
import { useWeights } from '../../components/models/use-weights';
import { useDeviceFacts } from '../../components/models/use-device-facts';
import { Onboarding } from '../../components/onboarding/Onboarding';
import { ASR_BUNDLES, LLM_BUNDLE, MODEL_BUNDLES, TTS_BUNDLE } from '../../models/registry';
import { modelsReadiness, statusLine } from '../../core/ux/status-line';
import { actionLabel, toUserError, type FixAction } from '../../core/ux/user-errors';
import { CharacterSwitcher } from '../../components/settings/CharacterSwitcher';
import { SettingsTabs } from '../../components/settings/SettingsTabs';
import { CameraPip } from '../../components/vision/CameraPip';
import { useVisionPreview } from '../../components/vision/use-vision-preview';
import '../../components/vision/camera-pip.css';

export function SidePanelApp() {
  const status = useAppStatus(true);
  const [settings, updateSettings, settingsError] = useSettings();
  const mic = usePermission('microphone');
  const [conversation, notices] = useConversation();
  const [weights] = useWeights();
  const device = useDeviceFacts(status, settings);
  const [settingsOpen, setSettingsOpen] = useState(false);
  // The welcome shows on a profile that has not finished it (decided once the settings arrive), or when Settings
  // reopens it; finishing it sets the persisted flag (docs/onboarding.md).
  const [welcome, setWelcome] = useState<boolean | null>(null);
  useEffect(() => {
    if (settings && welcome === null) setWelcome(!settings.onboardingDone);
  }, [settings, welcome]);
  // What "Try again" does for the last failure the panel caused itself (none for the engine's own notices).
  const retry = useRef<(() => void) | null>(null);
  const [avatar, setAvatar] = useState<AvatarHandle | null>(null);
  const bridge = useMemo(() => new AudioBridge(), []);
  const vision = useVisionPreview();
  const [userAvatar, setUserAvatar] = useState<StoredAvatar | null>(null);
  useEffect(() => {
    loadUserAvatar().then(
      (a) => setUserAvatar(a ?? null),
      () => setUserAvatar(null),
    );
  }, []);
  // A new object only when the avatar really changes: the Avatar component reloads on a new source.
  const avatarSource = useMemo(() => (userAvatar ? { bytes: userAvatar.bytes } : undefined), [userAvatar]);

  useEffect(() => () => bridge.close(), [bridge]);
  // The turn trace (docs/benchmarks.md, "What the user hears"): test builds, while the debug panel is on.
  useEffect(() => bridge.setTracing(TEST_HOOKS && !!settings?.debugPanel), [bridge, settings?.debugPanel]);
  useEffect(() => {
    if (settings?.theme && settings.theme !== 'system') document.documentElement.dataset.theme = settings.theme;
    else delete document.documentElement.dataset.theme;
  }, [settings?.theme]);

  const listening = settings?.handsFree ?? false;
  const canListen = mic === 'granted';
  const busy = conversation.state === 'thinking' || conversation.state === 'speaking';
  const ptt = usePushToTalk(
    canListen && !!settings && !listening && welcome === false,
    () => void updateSettings({ handsFree: !listening }),
  );
  // The orb says "listening" only once the engine said it listens (core/ux/status-line.ts is the status line's).
  const live = conversation.listening && (listening || ptt.talking);
  const starting = listening && !conversation.listening;
  const asr = ASR_BUNDLES[settings?.asrModel === 'whisper-base' ? 'whisper' : 'moonshine'];
  const line = statusLine({
    engine: conversation.state,
    detail: conversation.detail,
    models: modelsReadiness(weights, [asr.id, LLM_BUNDLE.id, TTS_BUNDLE.id]),
    mic,
    cpuOnly: settings?.computeBackend === 'wasm' || status?.offscreen?.gpu.available === false,
  });

  const act = (id: FixAction | 'show-downloads' | 'open-compute') => {
    if (id === 'download-models') setWelcome(true);
    else if (id === 'grant-microphone') openPermissionsPage();
    else if (id === 'open-settings' || id === 'show-downloads' || id === 'open-compute') setSettingsOpen(true);
    else if (id === 'retry') retry.current?.();
    if (id !== 'none') notices.dismissNotice();
  };

  const interrupt = () => void request('conversation/interrupt', {}).catch(() => undefined);
  useEffect(() => {
    // Escape stops the assistant mid-sentence, wherever focus is.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && busy) interrupt();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [busy]);

  const composer = useComposer(
    (text) => {
      notices.dismissNotice();
      return request('conversation/text', { text }, 180_000);
    },
    (err, again) => {
      retry.current = again;
      notices.showError(toUserError(err, 'send'));
    },
  );
  const notice = conversation.notice;
  const noticeAction = notice && notice.action !== 'none' && (notice.action !== 'retry' || retry.current) ? notice.action : null;

  return (
    <main class="panel" data-state={conversation.state}>
      <header class="panel-header">
        <h1>Sidetalk</h1>
        <CharacterSwitcher />
        <EngineStatus status={status} />
        <button
          type="button"
          class="button"
          aria-expanded={settingsOpen}
          aria-controls="settings-drawer"
          onClick={() => setSettingsOpen(!settingsOpen)}
          data-testid="settings-button"
        >
          Settings
        </button>
      </header>
      {settingsOpen && (
        <aside id="settings-drawer" class="drawer" aria-label="Settings">
          <SettingsTabs
            models={
              <>
                <ModelsPanel
                  catalog={MODEL_BUNDLES}
                  device={device}
                  settings={settings}
                  onMirrorSave={(url) => updateSettings({ mirrorBaseUrl: url.trim() })}
                />
                <ComputeSettings
                  settings={settings}
                  onChange={(patch) => void updateSettings(patch)}
                  voice={status?.offscreen?.tts ?? null}
                  llm={status?.offscreen?.llm ?? null}
                  speech={status?.offscreen?.speech ?? null}
                />
                <AvatarSettings current={userAvatar} onChange={setUserAvatar} />
                <MemoryPanel />
                <PrivacyNote />
                {TEST_HOOKS && settings?.debugPanel && <TunablesPanel />}
                {TEST_HOOKS && settings?.debugPanel && <TurnWaterfall />}
                <button
                  type="button"
                  class="button"
                  onClick={() => {
                    setSettingsOpen(false);
                    setWelcome(true);
                  }}
                  data-testid="reopen-onboarding"
                >
                  Show the welcome again
                </button>
              </>
            }
          />
        </aside>
      )}

      <section class="stage" aria-label="Assistant">
        <div class="avatar-slot" data-testid="avatar-slot">
          <Avatar
            {...(avatarSource ? { source: avatarSource } : {})}
            state={conversation.state}
            onReady={(h) => {
              bridge.attach(h);
              setAvatar(h);
            }}
            onStarted={() => bridge.started()}
            onLevel={(rms, heardAt, windowAt) => bridge.level(rms, heardAt, windowAt)}
            onEnded={({ interrupted, playedMs }) => bridge.ended(interrupted, playedMs)}
            onPlayed={(samples, heardAt, rate) => bridge.played(samples, heardAt, rate)}
          />
        </div>
        {settings?.visionEnabled && (
          <CameraPip
            state={vision.state}
            frame={vision.frame}
            {...(vision.message ? { message: vision.message } : {})}
            onClose={() => void updateSettings({ visionEnabled: false })}
          />
        )}
        <StatusLine line={line} ready={!!avatar} showAction={welcome === false} onAction={act} />
      </section>

      {welcome === true && (
        <Onboarding
          catalog={MODEL_BUNDLES}
          device={device}
          mic={mic}
          engine={conversation.state}
          onDone={() => void updateSettings({ onboardingDone: true })}
          onClose={() => setWelcome(false)}
        />
      )}
      {welcome === false && (
        <>
          <section class="transcript" aria-label="Conversation" aria-live="polite" data-testid="transcript">
            <Transcript lines={conversation.lines} captions={settings?.captions ?? true} />
            {conversation.card && <ToolCard card={conversation.card} />}
          </section>
          {notice && (
            <div class="notice" role="alert" data-testid="conversation-notice" data-action={notice.action}>
              <p>{notice.message}</p>
              <div class="notice-actions">
                {noticeAction && (
                  <button type="button" class="button primary" onClick={() => act(noticeAction)} data-testid="notice-action">
                    {actionLabel(noticeAction)}
                  </button>
                )}
                <button type="button" class="button" onClick={notices.dismissNotice}>
                  Dismiss
                </button>
              </div>
            </div>
          )}
          <PermissionNotice device="microphone" state={mic} />
          <Controls
            orb={{ listening, live, starting, canListen, ready: !!settings, ptt }}
            onStopListening={() => void updateSettings({ handsFree: false })}
            busy={busy}
            onInterrupt={interrupt}
            draft={composer.draft}
            onDraft={composer.setDraft}
            onSubmit={composer.submit}
          />
        </>
      )}
      {settingsError && (
        <p class="notice" role="alert" data-testid="settings-error">
          {settingsError}
        </p>
      )}
    </main>
  );
}
