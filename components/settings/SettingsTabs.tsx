import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import '../characters/characters.css';
import './settings.css';
import { VoicesPanel } from '../voices/VoicesPanel';
import { CharactersSettings } from './CharactersSettings';
import { ModelServerPanel } from './ModelServerPanel';

const TABS = [
  { id: 'models', label: 'Models' },
  { id: 'characters', label: 'Characters' },
  { id: 'voices', label: 'Voices' },
  { id: 'server', label: 'Model server' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/** The settings drawer's sections as tabs; the Models tab is whatever the panel passes (the weights UI). */
export function SettingsTabs({ models }: { models: ComponentChildren }) {
  const [tab, setTab] = useState<TabId>('models');
  return (
    <div class="settings-tabs">
      <div role="tablist" aria-label="Settings sections" class="tabs">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`tabpanel-${t.id}`}
            class={`tab ${tab === t.id ? 'selected' : ''}`}
            onClick={() => setTab(t.id)}
            data-testid={`settings-tab-${t.id}`}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`tabpanel-${tab}`} aria-labelledby={`tab-${tab}`} class="tabpanel">
        {tab === 'models' && models}
        {tab === 'characters' && <CharactersSettings />}
        {tab === 'voices' && <VoicesPanel />}
        {tab === 'server' && <ModelServerPanel />}
      </div>
    </div>
  );
}
