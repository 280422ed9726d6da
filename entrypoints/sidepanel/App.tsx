import { useEffect, useMemo, useState } from 'preact/hooks';
import { Avatar, type AvatarHandle } from '../../components/avatar/Avatar';
import { AudioBridge } from '../../components/conversation/audio-bridge';
import { ToolCard } from '../../components/conversation/ToolCard';
import { Transcript } from '../../components/conversation/Transcript';
import { useConversation } from '../../components/conversation/useConversation';
import { usePushToTalk } from '../../components/conversation/push-to-talk';
import { ModelsPanel } from '../../components/models/ModelsPanel';
import { ComputeSettings } from '../../components/models/ComputeSettings';
import { TunablesPanel } from '../../components/debug/TunablesPanel';
import { MemoryPanel } from '../../components/memory/MemoryPanel';
import { AvatarSettings } from '../../components/avatar/AvatarSettings';
import { loadUserAvatar, type StoredAvatar } from '../../components/avatar/avatar-store';
import { EngineStatus } from '../../components/ui/EngineStatus';
import { PermissionNotice } from '../../components/ui/PermissionNotice';
import { request, useAppStatus, usePermission, useSettings } from '../../components/ui/runtime';
import { MODEL_BUNDLES } from '../../models/registry';
import { CharacterSwitcher } from '../../components/settings/CharacterSwitcher';
import { SettingsTabs } from '../../components/settings/SettingsTabs';
import { CameraPip } from '../../components/vision/CameraPip';
import { useVisionPreview } from '../../components/vision/use-vision-preview';
import '../../components/vision/camera-pip.css';

const STATE_LABEL = { idle: 'Ready', listening: 'Listening…', thinking: 'Thinking…', speaking: 'Speaking' } as const;

export function SidePanelApp() {
  const status = useAppStatus(true);
  const [settings, updateSettings, settingsError] = useSettings();
  const mic = usePermission('microphone');
  const [conversation, dismissNotice] = useConversation();
  const [draft, setDraft] = useState('');
  const [sendError, setSendError] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
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
  useEffect(() => {
    if (settings?.theme && settings.theme !== 'system') document.documentElement.dataset.theme = settings.theme;
    else delete document.documentElement.dataset.theme;
  }, [settings?.theme]);

  const listening = settings?.handsFree ?? false;
  const canListen = mic === 'granted';
  const busy = conversation.state === 'thinking' || conversation.state === 'speaking';
  const ptt = usePushToTalk(canListen && !!settings && !listening, () => void updateSettings({ handsFree: !listening }));

  const interrupt = () => void request('conversation/interrupt', {}).catch(() => undefined);
  useEffect(() => {
    // Escape stops the assistant mid-sentence, wherever focus is.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && busy) interrupt();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [busy]);

  const submit = async () => {
    const text = draft.trim();
    if (!text) return;
    setSendError(null);
    try {
      await request('conversation/text', { text }, 180_000);
      setDraft('');
    } catch (e) {
      // The draft stays in the box so nothing the user typed is lost.
      setSendError((e as Error).message);
    }
  };

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
                  settings={settings}
                  onMirrorSave={(url) => updateSettings({ mirrorBaseUrl: url.trim() })}
                />
                <ComputeSettings
                  settings={settings}
                  onChange={(patch) => void updateSettings(patch)}
                  voice={status?.offscreen?.tts ?? null}
                />
                <AvatarSettings current={userAvatar} onChange={setUserAvatar} />
                <MemoryPanel />
                {settings?.debugPanel && <TunablesPanel />}
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
            onLevel={(rms) => bridge.level(rms)}
            onEnded={({ interrupted }) => bridge.ended(interrupted)}
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
        <p class="state-line" role="status" data-testid="engine-state" data-ready={avatar ? 'yes' : 'no'}>
          {conversation.detail ?? STATE_LABEL[conversation.state]}
        </p>
      </section>

      <section class="transcript" aria-label="Conversation" aria-live="polite" data-testid="transcript">
        <Transcript lines={conversation.lines} captions={settings?.captions ?? true} />
        {conversation.card && <ToolCard card={conversation.card} />}
      </section>

      {conversation.notice && (
        <div class="notice" role="alert" data-testid="conversation-notice">
          <p>{conversation.notice.message}</p>
          <button type="button" class="button" onClick={dismissNotice}>
            Dismiss
          </button>
        </div>
      )}
      {settingsError && (
        <p class="notice" role="alert">
          Settings could not be saved: {settingsError}
        </p>
      )}
      <PermissionNotice device="microphone" state={mic} />

      <footer class="controls">
        <button
          type="button"
          class={`orb ${listening || ptt.talking ? 'on' : ''}`}
          aria-pressed={listening}
          disabled={!canListen || !settings}
          title={
            canListen
              ? 'Click: hands-free listening (Alt+Shift+L). Hold (or hold Space): push to talk.'
              : 'Grant microphone access first'
          }
          {...(listening ? { onClick: () => void updateSettings({ handsFree: false }) } : ptt.orbHandlers)}
          data-testid="orb"
        >
          <span class="visually-hidden">{listening ? 'Stop listening' : 'Start listening (hold to push to talk)'}</span>
        </button>
        {busy && (
          <button type="button" class="button" onClick={interrupt} data-testid="stop" title="Stop (Esc)">
            Stop
          </button>
        )}
        <form
          class="composer"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <label class="visually-hidden" for="composer-input">
            Type a message
          </label>
          <input
            id="composer-input"
            value={draft}
            onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
            placeholder="Type instead of talking…"
            autocomplete="off"
            data-testid="composer"
          />
          <button type="submit" class="button primary" disabled={!draft.trim()}>
            Send
          </button>
        </form>
      </footer>
      {sendError && (
        <p class="notice" role="alert" data-testid="send-error">
          {sendError}
        </p>
      )}
    </main>
  );
}
