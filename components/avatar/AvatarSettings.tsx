import { useState } from 'preact/hooks';
import { validateAvatarGlb } from '../../core/avatar/glb-check';
import { deleteUserAvatar, saveUserAvatar, type StoredAvatar } from './avatar-store';

interface Props {
  current: StoredAvatar | null;
  onChange: (avatar: StoredAvatar | null) => void;
}

/** Load your own avatar (a GLB with the TalkingHead rig) or go back to the built-in one. */
export function AvatarSettings({ current, onChange }: Props) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const choose = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const bytes = await file.arrayBuffer();
      const check = validateAvatarGlb(bytes);
      if (!check.ok) throw new Error(`This file cannot be used as an avatar: ${check.errors.join(' ')}`);
      const avatar: StoredAvatar = { name: file.name.slice(0, 120), bytes, savedAt: Date.now() };
      await saveUserAvatar(avatar);
      onChange(avatar);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="compute" aria-labelledby="avatar-heading" data-testid="avatar-settings">
      <h2 id="avatar-heading">Avatar</h2>
      <p class="small" data-testid="avatar-current">
        {current ? `Your avatar: ${current.name}` : 'The built-in Sidetalk character'}
      </p>
      <label class="field">
        <span>Use your own avatar (.glb with a TalkingHead-compatible rig)</span>
        <input
          type="file"
          accept=".glb,model/gltf-binary"
          disabled={busy}
          onChange={(e) => void choose((e.target as HTMLInputElement).files?.[0])}
          data-testid="avatar-file"
        />
      </label>
      {current && (
        <button
          type="button"
          class="button"
          onClick={() =>
            void deleteUserAvatar().then(
              () => onChange(null),
              (e: Error) => setError(e.message),
            )
          }
          data-testid="avatar-default"
        >
          Use the built-in avatar
        </button>
      )}
      {error && (
        <p class="notice" role="alert" data-testid="avatar-error">
          {error}
        </p>
      )}
    </section>
  );
}
